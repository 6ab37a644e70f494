// Chapter 04 · Value retrieval: why keys and values differ
//
// The lesson: the lookups of math.cpp in a phonebook (hard, soft, along a path, at several
// temperatures), then on a sentence; checks.cpp checks them another way.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chapters/04_value_retrieval/checks.hpp"
#include "chapters/04_value_retrieval/inputs.hpp"
#include "chapters/04_value_retrieval/math.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/combination.hpp"
#include "common/lesson/lesson.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

// Row i of m as "(a, b, c)".
std::string row_text(const Matrix& m, std::size_t i, int decimals) {
    std::vector<std::string> parts;
    for (std::size_t d = 0; d < cols(m); ++d) parts.push_back(format_number(m(i, d), decimals));
    return fmt::format("({})", fmt::join(parts, ", "));
}

// Step: the soft lookup, as a product and written out term by term.
void show_soft(Lesson& lesson, const Phonebook& book, const ValueRetrieval& r) {
    const Labels& people = book.keys.rows;
    const Lookup& l = r.book;
    lesson.say(
        "Attention does not pick one key. It turns the scores into weights that sum\n"
        "to 1 and returns the weighted sum of all the values: answer = weights · values.");
    lesson.show(r.book.weights, Style().svg());
    lesson.show(r.book.soft, Style().decimals(1));
    lesson.say("The same, written out as Σ_i w_i v_i, largest weight first:");
    std::string sums;
    for (std::size_t i = 0; i < rows(l.weights); ++i)
        sums += fmt::format("{}{} = {}\n    = {}", i == 0 ? "" : "\n", book.queries.rows[i],
                            format_combination(combination_of_row(l.weights, i, cols(l.weights)), people),
                            row_text(l.soft_by_loops, i, 1));
    lesson.say(sums);
    if (r.blend < rows(l.scores))
        lesson.say(fmt::format(
            "\"{}\" matches {} ({}) and {} ({}) partly, and gets back {}:\n"
            "a blend of phone numbers, which is nobody's number. For a phonebook that is\n"
            "useless; for a network it is the point, as the next step shows.",
            book.queries.rows[r.blend], people[r.path.from], format_number(l.scores(r.blend, r.path.from), 2),
            people[r.path.to], format_number(l.scores(r.blend, r.path.to), 2), row_text(l.soft, r.blend, 1)));
}

// Step: a query sliding from one key to another; the soft answer moves, the hard one jumps.
void show_path(Lesson& lesson, const Phonebook& book, const Path& p) {
    const Labels& people = book.keys.rows;
    lesson.say(fmt::format(
        "The query q(t) = (1 − t)·k_{} + t·k_{} slides from {}'s key (t = 0) to {}'s\n"
        "(t = 1). ‖Δ‖ is how far the answer moved since the row above.",
        people[p.from], people[p.to], people[p.from], people[p.to]));
    TextRow header{"t", "w " + people[p.from], "w " + people[p.to]};
    for (const auto& column : book.values.columns) header.push_back("soft " + column);
    header.insert(header.end(), {"‖Δ soft‖", "hard lookup", "‖Δ hard‖"});
    std::vector<TextRow> path_rows;
    for (std::size_t s = 0; s <= path_steps; ++s) {
        TextRow& row = path_rows.emplace_back(TextRow{format_number(float(s) / path_steps, 1),
                                                      format_number(p.weights(s, p.from), 2),
                                                      format_number(p.weights(s, p.to), 2)});
        for (std::size_t d = 0; d < cols(p.soft); ++d) row.push_back(format_number(p.soft(s, d), 1));
        row.insert(row.end(), {s == 0 ? "" : format_number(p.soft_step[s], 1),
                               people[argmax_of_row(p.hard_weights, s)], s == 0 ? "" : format_number(p.hard_step[s], 1)});
    }
    lesson.table(header, path_rows);
    if (p.jump > 0)
        lesson.say(fmt::format(
            "The hard answer stands still, then jumps by {} between t = {} and {}: its\n"
            "derivative is 0 wherever it has one, so it never tells which way to move the\n"
            "query. The soft answer moves by at most {} per step, a little for every little\n"
            "move: it is differentiable, and gradient descent can follow its slope to learn\n"
            "the queries, keys and values. That is why attention blends.",
            format_number(p.largest_hard_step, 1), format_number(float(p.jump - 1) / path_steps, 1),
            format_number(float(p.jump) / path_steps, 1), format_number(p.largest_soft_step, 1)));
}

// Step: the weight on the best key and the distance to the hard answer, temperature by temperature.
void show_temperatures(Lesson& lesson, const Phonebook& book, const TemperatureSweep& w, float temperature) {
    lesson.say(
        "Dividing the scores by a temperature T before the softmax stretches their\n"
        "differences: a low T gives the best key almost all the weight, and the soft\n"
        "answer tends to the hard one. (Chapter 03's 1/√d_k is a temperature of √d_k.)");
    TextRow header{"T"};
    header.insert(header.end(), book.queries.rows.begin(), book.queries.rows.end());
    // One row a temperature, one column a query; ← marks the lesson's T.
    auto table = [&](const std::string& title, const Matrix& m, int decimals) {
        std::vector<TextRow> body;
        for (std::size_t t = 0; t < w.temperatures.size(); ++t) {
            body.push_back({fmt::format("{:g}{}", w.temperatures[t], w.temperatures[t] == temperature ? " ←" : "")});
            for (std::size_t i = 0; i < cols(m); ++i) body.back().push_back(format_number(m(t, i), decimals));
        }
        lesson.say(title);
        lesson.table(header, body);
    };
    table("The weight on the best key:", w.best_weight, 3);
    table("The distance ‖soft answer − hard answer‖:", w.distance, 1);
    lesson.say(fmt::format("(← marks the T of {} and {}.) A query that is k times longer has k times\n"
                           "the scores: being long is the same as a lower temperature. A query that ties\n"
                           "keys never sharpens: no temperature makes one of equal scores win.",
                           lesson.ref("soft-lookup"), lesson.ref("smooth")));
}

// Step: every token of the sentence looks the others up; each row of the output as a sum of tokens.
void show_sentence(Lesson& lesson, const Sequence& seq, const SentenceLookup& s) {
    const Labels& tokens = seq.tokens;
    lesson.say(fmt::format(
        "A sentence is a phonebook that looks itself up: every token is a query, every\n"
        "token a key and a value. Without learned projections (chapter 05), the query,\n"
        "key and value of a token are all its embedding: K = V = X, and\n"
        "weights = softmax(X · Xᵀ / √d_model{}) with d_model = {}.",
        s.temperature == 1.0f ? "" : " / T", cols(seq.X)));
    lesson.show(seq.X, Style().decimals(1));
    lesson.show(s.weights, Style().svg());
    lesson.show(s.output, Style().decimals(2));
    lesson.say(
        "Row i of the output is token i's context vector: the embeddings of the\n"
        "sentence, mixed by row i of the weights. Read as a sum of the tokens' vectors:");
    lesson.say(combinations_of_rows(s.weights, tokens));
    std::size_t self_best = 0;  // a copy of the token (the same word) counts as itself
    for (std::size_t i = 0; i < tokens.size(); ++i) self_best += tokens[s.best_key[i]] == tokens[i];
    lesson.say(fmt::format(
        "In {} of {} rows the largest weight is on the token itself (or a copy of it),\n"
        "because nothing is as similar to a vector as itself (chapter 01's diagonal).\n"
        "The largest weight of a row is {} on average:\n{}\n"
        "Chapter 05 gives each token a query, a key and a value of its own, so that a\n"
        "token can look for something other than itself.",
        self_best, tokens.size(), format_number(s.mean_largest, 2),
        s.mean_largest < 0.3f ? "the scores of these embeddings are small and close together, so each\n"
                                "context vector is near the average of the sentence."
                              : "at this temperature a token takes mostly itself, and its context vector\n"
                                "is little more than its own embedding."));
}

// The matrices by name, for --dump, --html and the labels of their rows and columns.
void list_matrices(Lesson& lesson, const Phonebook& book, const Sequence& seq, const ValueRetrieval& r) {
    Labels steps, temperatures;  // the path's and the sweep's rows
    for (std::size_t s = 0; s <= path_steps; ++s) steps.push_back("t=" + format_number(float(s) / path_steps, 1));
    for (const float T : r.sweep.temperatures) temperatures.push_back(fmt::format("T={:g}", T));
    for (const auto& [kind, words] : {std::pair{"people", book.keys.rows}, {"key columns", book.keys.columns},
                                      {"value columns", book.values.columns}, {"queries", book.queries.rows},
                                      {"path steps", steps}, {"temperatures", temperatures},
                                      {"tokens", seq.tokens}, {"dimensions", seq.dimensions}})
        lesson.labels(kind, words);
    lesson.list(r.matrices());
    lesson.list(seq.matrices());
    lesson.list(r.sentence.matrices());
}

// Step keys-and-values: the phonebook's two matrices.
void show_keys_and_values(Lesson& lesson, const ValueRetrieval& r) {
    lesson.say(fmt::format(
        "You recognise a person by what they look like: that is the key, {} numbers each.\n"
        "What you want from the phonebook is their phone number: that is the value, {}\n"
        "numbers each. Keys are compared, values are returned; they need not even have\n"
        "the same width (d_k = {}, d_v = {}).",
        cols(r.keys), cols(r.values), cols(r.keys), cols(r.values)));
    lesson.show(r.keys, Style().decimals(1));
    lesson.show(r.values, Style().decimals(0));
}

// Step hard-lookup: argmax's one-hot weights, and the ties it breaks arbitrarily.
void show_hard_lookup(Lesson& lesson, const Phonebook& book, const ValueRetrieval& r) {
    lesson.say("A dictionary lookup takes the key that matches best (argmax) and returns its\n"
               "value: exactly one row of the values. As weights, that is a one-hot row.");
    lesson.show(r.book.hard_weights, Style().decimals(0).svg());
    lesson.show(r.book.hard, Style().decimals(1));
    for (const std::size_t i : r.book.tied)  // argmax picks the first of the best keys
        lesson.say(fmt::format("\"{}\" scores several keys equally ({}): argmax has to break the tie, and\n"
                               "gives {}. The answer is arbitrary.",
                               book.queries.rows[i], format_number(r.book.scores(i, r.book.best[i]), 2),
                               book.keys.rows[r.book.best[i]]));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, "\"" + default_sentence + "\" (for the sentence step)");
    float temperature = 1.0f;
    lesson.option("--temperature", temperature, "T in softmax(scores / T), for the phonebook and the sentence",
                  Range{0, no_limit, Range::low_excluded});

    return lesson.run(argc, argv, [&] {
        const Phonebook book = load_phonebook();
        const Sequence seq = load_sequence(input, default_sentence);
        const ValueRetrieval r =
            value_retrieval(book.keys.values, book.values.values, book.queries.values, seq.X, temperature);
        list_matrices(lesson, book, seq, r);

        lesson.step("keys-and-values", "A phonebook: keys to find someone, values to get back",
                    [&] { show_keys_and_values(lesson, r); });
        lesson.step("scores", "Queries, and how well each matches each key", [&] {
            lesson.say("A query describes who we are looking for, in the columns of the keys. Its\n"
                       "score against a key is their dot product, as in chapter 01.");
            lesson.show(r.queries, Style().decimals(1));
            lesson.show(r.book.scores, Style().decimals(2));
        });
        lesson.step("hard-lookup", "Hard lookup: the value of the best key, and nothing else",
                    [&] { show_hard_lookup(lesson, book, r); });
        lesson.step("soft-lookup", fmt::format("Soft lookup: a blend of every value (T = {:g})", temperature),
                    [&] { show_soft(lesson, book, r); });
        lesson.step("smooth",
                    fmt::format("Why a blend is useful: it changes smoothly (a query moving from {} to {})",
                                book.keys.rows[r.path.from], book.keys.rows[r.path.to]),
                    [&] { show_path(lesson, book, r.path); });
        lesson.step("temperature", "Temperature: from the soft lookup to the hard one",
                    [&] { show_temperatures(lesson, book, r.sweep, temperature); });
        lesson.step("sentence", "The same on a sentence: each token's context vector",
                    [&] { show_sentence(lesson, seq, r.sentence); });
        lesson.step("checks", "Self-checks", [&] { check_value_retrieval(lesson.checks(), seq.X, r); });
        lesson.present();
    });
}
