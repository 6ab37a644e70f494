// Chapter 04 · Value retrieval: why keys and values differ
//
// The lesson: the lookups of math.cpp in a phonebook (hard, soft, along a path,
// at several temperatures), then the same lookup on a sentence; checked against
// the loop Σ_j w_ij v_j, the limit T → 0 and attention written out in double.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chapters/04_value_retrieval/math.hpp"
#include "common/lesson/combination.hpp"
#include "common/lesson/labelled_csv.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";
constexpr float check_temperature = 0.001f;  // the self-check's "low temperature"
constexpr float smallest_gap = 0.02f;         // a best key must lead by this much to be checked at that T

struct Phonebook {
    LabelledMatrix keys;     // (m × d_k)  how you recognise each person
    LabelledMatrix values;   // (m × d_v)  their phone number
    LabelledMatrix queries;  // (q × d_k)  who we are looking for
};

// The three phonebook files, checked against each other before anything is printed.
Phonebook load_phonebook() {
    Phonebook book{read_data_file("phonebook_keys.csv"), read_data_file("phonebook_values.csv"),
                   read_data_file("phonebook_queries.csv")};
    if (book.values.rows != book.keys.rows)
        throw InputError(fmt::format("{}: lists {}, but {} lists {} (the same people, in the same order)",
                                     book.values.source, fmt::join(book.values.rows, ","), book.keys.source,
                                     fmt::join(book.keys.rows, ",")));
    if (book.queries.columns != book.keys.columns)
        throw InputError(fmt::format("{}: has the columns {}, but the keys ({}) have {} (a query is compared "
                                     "with a key column by column)",
                                     book.queries.source, fmt::join(book.queries.columns, ","), book.keys.source,
                                     fmt::join(book.keys.columns, ",")));
    return book;
}

std::string row_text(const Matrix& m, std::size_t i, int decimals) {
    std::vector<std::string> parts;
    for (std::size_t d = 0; d < cols(m); ++d) parts.push_back(format_number(m(i, d), decimals));
    return "(" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
}

// --temperature's validator: a number greater than 0.
CLI::Validator greater_than_zero() {
    return CLI::Validator(
        [](std::string& text) {
            try {
                if (std::stod(text) > 0.0) return std::string();
            } catch (const std::exception&) {
            }
            return "expected a number greater than 0, got " + text;
        },
        "");
}

std::string temperature_text(float temperature) { return fmt::format("{:g}", temperature); }

// Every matrix of the result that no step prints, for --dump (and ./tutorial check).
void keep_the_rest(Lesson& lesson, const Phonebook& book, const ValueRetrieval& r) {
    const Labels& people = book.keys.rows;
    Labels ts, temperatures;
    for (std::size_t s = 0; s <= path_steps; ++s) ts.push_back(fmt::format("t={:.1f}", float(s) / path_steps));
    for (const float T : r.sweep.temperatures) temperatures.push_back("T=" + temperature_text(T));
    lesson.keep_for_dump("phonebook_soft_by_loops", r.book.soft_by_loops, book.queries.rows, book.values.columns);
    lesson.keep_for_dump("path_queries", r.path.queries, ts, book.keys.columns);
    lesson.keep_for_dump("path_scores", r.path.scores, ts, people);
    lesson.keep_for_dump("path_weights", r.path.weights, ts, people);
    lesson.keep_for_dump("path_soft", r.path.soft, ts, book.values.columns);
    lesson.keep_for_dump("path_hard_weights", r.path.hard_weights, ts, people);
    lesson.keep_for_dump("path_hard", r.path.hard, ts, book.values.columns);
    lesson.keep_for_dump("temperature_best_weight", r.sweep.best_weight, temperatures, book.queries.rows);
    lesson.keep_for_dump("temperature_distance", r.sweep.distance, temperatures, book.queries.rows);
}

// Step: the keys and the values, side by side in width.
void show_phonebook(Lesson& lesson, const Phonebook& book) {
    const std::size_t d_k = cols(book.keys.values), d_v = cols(book.values.values);
    lesson.say(fmt::format(
        "You recognise a person by what they look like: that is the key, {} numbers each.\n"
        "What you want from the phonebook is their phone number: that is the value, {}\n"
        "numbers each. Keys are compared, values are returned; they need not even have\n"
        "the same width (d_k = {}, d_v = {}).",
        d_k, d_v, d_k, d_v));
    lesson.show("phonebook_keys", book.keys.values, ShowAs().labels(book.keys.rows, book.keys.columns).decimals(1));
    lesson.show("phonebook_values", book.values.values,
                ShowAs().labels(book.values.rows, book.values.columns).decimals(0));
}

// Step: the queries and their dot products with every key.
void show_scores(Lesson& lesson, const Phonebook& book, const ValueRetrieval& r) {
    lesson.say(
        "A query describes who we are looking for, in the columns of the keys. Its\n"
        "score against a key is their dot product, as in chapter 01.");
    lesson.show("phonebook_queries", book.queries.values,
                ShowAs().labels(book.queries.rows, book.queries.columns).decimals(1));
    lesson.show("phonebook_scores", r.book.scores,
                ShowAs("queries · keysᵀ").labels(book.queries.rows, book.keys.rows).decimals(2));
}

// Step: the hard lookup, and what argmax does with a tie.
void show_hard(Lesson& lesson, const Phonebook& book, const Lookup& l) {
    const Labels& people = book.keys.rows;
    lesson.say(
        "A dictionary lookup takes the key that matches best (argmax) and returns its\n"
        "value: exactly one row of the values. As weights, that is a one-hot row.");
    lesson.show("phonebook_hard_weights", l.hard_weights,
                ShowAs("1 at argmax of each row of scores").labels(book.queries.rows, people).decimals(0).heat_map());
    lesson.show("phonebook_hard", l.hard,
                ShowAs("phonebook_hard_weights · values").labels(book.queries.rows, book.values.columns).decimals(1));
    for (std::size_t i = 0; i < rows(l.scores); ++i)
        if (lead_in_row(l.scores, i) == 0.0f) {
            const std::size_t chosen = argmax_of_row(l.hard_weights, i);
            lesson.say(
                fmt::format("\"{}\" scores several keys equally ({}): argmax has to break the tie, and\n"
                            "gives {}. The answer is arbitrary.",
                            book.queries.rows[i], format_number(l.scores(i, chosen), 2), people[chosen]));
        }
}

// Step: the soft lookup, as a product and written out term by term.
void show_soft(Lesson& lesson, const Phonebook& book, const ValueRetrieval& r, float temperature) {
    const Labels& people = book.keys.rows;
    const Lookup& l = r.book;
    lesson.say(
        "Attention does not pick one key. It turns the scores into weights that sum\n"
        "to 1 and returns the weighted sum of all the values: answer = weights · values.");
    const std::string formula = temperature == 1.0f
                                    ? "softmax(phonebook_scores)"
                                    : fmt::format("softmax(phonebook_scores / {})", temperature_text(temperature));
    lesson.show("phonebook_weights", l.weights, ShowAs(formula).labels(book.queries.rows, people).heat_map());
    lesson.show("phonebook_output", l.soft,
                ShowAs("phonebook_weights · values").labels(book.queries.rows, book.values.columns).decimals(1));
    lesson.say("The same, written out as Σ_i w_i v_i, largest weight first:");
    std::vector<std::string> sums;
    for (std::size_t i = 0; i < rows(l.weights); ++i)
        sums.push_back(fmt::format("{} = {}\n    = {}", book.queries.rows[i],
                                   format_combination(combination_of_row(l.weights, i, cols(l.weights)), people),
                                   row_text(l.soft_by_loops, i, 1)));
    lesson.say(fmt::format("{}", fmt::join(sums, "\n")));
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
    float largest_soft_step = 0.0f, largest_hard_step = 0.0f;
    std::size_t jump = 0;  // the row where the hard answer changes
    for (std::size_t s = 0; s <= path_steps; ++s) {
        TextRow row{fmt::format("{:.1f}", static_cast<float>(s) / path_steps),
                    fmt::format("{:.2f}", p.weights(s, p.from)), fmt::format("{:.2f}", p.weights(s, p.to))};
        for (std::size_t d = 0; d < cols(p.soft); ++d) row.push_back(fmt::format("{:.1f}", p.soft(s, d)));
        if (p.hard_step[s] > largest_hard_step) largest_hard_step = p.hard_step[s], jump = s;
        largest_soft_step = std::max(largest_soft_step, p.soft_step[s]);
        row.insert(row.end(), {s == 0 ? "" : fmt::format("{:.1f}", p.soft_step[s]),
                               people[argmax_of_row(p.hard_weights, s)],
                               s == 0 ? "" : fmt::format("{:.1f}", p.hard_step[s])});
        path_rows.push_back(row);
    }
    lesson.table(header, path_rows);
    if (jump > 0)
        lesson.say(
            fmt::format("The hard answer stands still, then jumps by {:.1f} between t = {:.1f} and {:.1f}: its\n"
                        "derivative is 0 wherever it has one, so it never tells which way to move the\n"
                        "query. The soft answer moves by at most {:.1f} per step, a little for every little\n"
                        "move: it is differentiable, and gradient descent can follow its slope to learn\n"
                        "the queries, keys and values. That is why attention blends.",
                        largest_hard_step, static_cast<float>(jump - 1) / path_steps,
                        static_cast<float>(jump) / path_steps, largest_soft_step));
}

// Step: the weight on the best key and the distance to the hard answer, temperature by temperature.
void show_temperatures(Lesson& lesson, const Phonebook& book, const TemperatureSweep& w, float temperature) {
    lesson.say(
        "Dividing the scores by a temperature T before the softmax stretches their\n"
        "differences: a low T gives the best key almost all the weight, and the soft\n"
        "answer tends to the hard one. (Chapter 03's 1/√d_k is a temperature of √d_k.)");
    TextRow query_header{"T"};
    query_header.insert(query_header.end(), book.queries.rows.begin(), book.queries.rows.end());
    std::vector<TextRow> best_weight_rows, distance_rows;
    for (std::size_t t = 0; t < w.temperatures.size(); ++t) {
        const float T = w.temperatures[t];
        const std::string label = temperature_text(T) + (T == temperature ? " ←" : "");
        TextRow weight_row{label}, distance_row{label};
        for (std::size_t i = 0; i < cols(w.best_weight); ++i) {
            weight_row.push_back(fmt::format("{:.3f}", w.best_weight(t, i)));
            distance_row.push_back(fmt::format("{:.1f}", w.distance(t, i)));
        }
        best_weight_rows.push_back(weight_row);
        distance_rows.push_back(distance_row);
    }
    lesson.say("The weight on the best key:");
    lesson.table(query_header, best_weight_rows);
    lesson.say("The distance ‖soft answer − hard answer‖:");
    lesson.table(query_header, distance_rows);
    lesson.say(
        fmt::format("(← marks the T of {} and {}.) A query that is k times longer has k times\n"
                    "the scores: being long is the same as a lower temperature. A query that ties\n"
                    "keys never sharpens: no temperature makes one of equal scores win.",
                    lesson.ref("soft-lookup"), lesson.ref("smooth")));
}

// Step: every token of the sentence looks the others up; each row of the output as a sum of tokens.
void show_sentence(Lesson& lesson, const Sequence& seq, const ValueRetrieval& r, float temperature) {
    const Labels& tokens = seq.tokens;
    const std::size_t n = tokens.size();
    lesson.say(fmt::format(
        "A sentence is a phonebook that looks itself up: every token is a query, every\n"
        "token a key and a value. Without learned projections (chapter 05), the query,\n"
        "key and value of a token are all its embedding: K = V = X, and\n"
        "weights = softmax(X · Xᵀ / √d_model{}) with d_model = {}.",
        temperature == 1.0f ? "" : " / T", cols(seq.X)));
    lesson.show("X", seq.X, ShowAs().labels(tokens, seq.dimensions).decimals(1));
    const std::string formula = temperature == 1.0f ? "softmax(X · Xᵀ / √d_model)"
                                                    : fmt::format("softmax(X · Xᵀ / √d_model / {})",
                                                                  temperature_text(temperature));
    lesson.show("weights", r.sentence_weights, ShowAs(formula).labels(tokens, tokens).heat_map());
    lesson.show("output", r.output, ShowAs("weights · V, with V = X").labels(tokens, seq.dimensions).decimals(2));
    lesson.say(
        "Row i of the output is token i's context vector: the embeddings of the\n"
        "sentence, mixed by row i of the weights. Read as a sum of the tokens' vectors:");
    lesson.say(combinations_of_rows(r.sentence_weights, tokens));
    std::size_t self_best = 0;
    float mean_largest = 0.0f;  // how peaked the rows are, on average
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t best = argmax_of_row(r.sentence_weights, i);
        self_best += tokens[best] == tokens[i];
        mean_largest += r.sentence_weights(i, best) / static_cast<float>(n);
    }
    lesson.say(
        fmt::format("In {} of {} rows the largest weight is on the token itself (or a copy of it),\n"
                    "because nothing is as similar to a vector as itself (chapter 01's diagonal).\n"
                    "The largest weight of a row is {:.2f} on average:\n{}\n"
                    "Chapter 05 gives each token a query, a key and a value of its own, so that a\n"
                    "token can look for something other than itself.",
                    self_best, n, mean_largest,
                    mean_largest < 0.3f ? "the scores of these embeddings are small and close together, so each\n"
                                          "context vector is near the average of the sentence."
                                        : "at this temperature a token takes mostly itself, and its context vector\n"
                                          "is little more than its own embedding."));
}

// The largest error of the sentence's weights and output against
// softmax(x_i · x_j / √d_model / T) · X computed again by loops in double: an
// independent computation of attention (no matmul, no softmax_rows).
double attention_error_against_double(const Matrix& X, float temperature, const Matrix& weights,
                                      const Matrix& output) {
    const std::size_t n = rows(X), d_model = cols(X);
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> p(n, 0.0);
        double top = -INFINITY, sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t d = 0; d < d_model; ++d) p[j] += double(X(i, d)) * X(j, d);
            p[j] /= std::sqrt(double(d_model)) * double(temperature);
            top = std::max(top, p[j]);
        }
        for (double& x : p) sum += x = std::exp(x - top);
        for (std::size_t j = 0; j < n; ++j) {
            p[j] /= sum;
            worst = std::max(worst, std::abs(p[j] - weights(i, j)));
        }
        for (std::size_t d = 0; d < d_model; ++d) {
            double out = 0.0;  // Σ_j w_ij x_j
            for (std::size_t j = 0; j < n; ++j) out += p[j] * X(j, d);
            worst = std::max(worst, std::abs(out - output(i, d)));
        }
    }
    return std::isnan(worst) ? INFINITY : worst;
}

// Each claim against something computed another way: the matrix product, the
// limit T → 0, the printed combinations, attention as loops in double.
void check(SelfChecks& check, const Phonebook& book, const Sequence& seq, const ValueRetrieval& r,
           float temperature) {
    const Matrix& values = book.values.values;
    const Lookup& l = r.book;
    float largest_value = 1.0f;
    for (const float v : values) largest_value = std::max(largest_value, std::abs(v));
    const double tolerance = 1e-5 * largest_value;  // float rounding grows with the size of the values
    check.close("the soft lookup weights · values equals the loop Σ_i w_i v_i",
                max_abs_difference(l.soft_by_loops, l.soft), tolerance);
    check.close("every row of phonebook_weights and of weights sums to 1",
                std::max(worst_row_sum_error(l.weights), worst_row_sum_error(r.sentence_weights)),
                row_sum_tolerance(std::max(cols(l.weights), rows(seq.X))));
    const Matrix cold = soft_lookup(l.scores, values, check_temperature);  // (q × d_v)
    double cold_error = 0.0;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < rows(l.scores); ++i)
        if (lead_in_row(l.scores, i) >= smallest_gap) {
            cold_error = std::max(cold_error, double(row_distance(cold, i, l.hard, i)));
            ++checked;
        }
    check.close(fmt::format("at T = {:g} soft = hard (the {} queries with one best key)", check_temperature, checked),
                cold_error, 1e-4 * largest_value);
    const Matrix& X = seq.X;
    double combination_error = 0.0;
    for (std::size_t i = 0; i < rows(X); ++i) {
        const Matrix by_terms = combine_rows(combination_of_row(r.sentence_weights, i, 4, 0.02f), X);  // (1 × d)
        for (std::size_t d = 0; d < cols(X); ++d)
            combination_error = std::max(combination_error, double(std::abs(by_terms(0, d) - r.output(i, d))));
    }
    check.close("each output row equals its printed combination Σ_j w_ij x_j", combination_error,
                scaled_tolerance(1e-5, X));  // rounding grows with the size of the embeddings
    // Weights ≤ 1 and outputs of the size of X: float rounding is relative to both.
    check.close("output = softmax(X · Xᵀ / √d / T) · X, looped in double",
                attention_error_against_double(X, temperature, r.sentence_weights, r.output),
                scaled_tolerance(1e-5, X));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch04_value_retrieval", "Chapter 04 · Value retrieval: why keys and values differ");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\" (for the sentence step)");
    float temperature = 1.0f;
    lesson.cli()
        .add_option("--temperature", temperature,
                    "T in softmax(scores / T), for the phonebook and the sentence (T > 0)")
        ->check(greater_than_zero())
        ->capture_default_str();

    return lesson.run(argc, argv, [&] {
        const Phonebook book = load_phonebook();
        const Sequence seq = load_sequence(input, default_sentence);
        const ValueRetrieval r =
            value_retrieval(book.keys.values, book.values.values, book.queries.values, seq.X, temperature);
        const Labels& people = book.keys.rows;
        keep_the_rest(lesson, book, r);

        lesson.step("keys-and-values", "A phonebook: keys to find someone, values to get back",
                    [&] { show_phonebook(lesson, book); });
        lesson.step("scores", "Queries, and how well each matches each key", [&] { show_scores(lesson, book, r); });
        lesson.step("hard-lookup", "Hard lookup: the value of the best key, and nothing else",
                    [&] { show_hard(lesson, book, r.book); });
        lesson.step("soft-lookup",
                    fmt::format("Soft lookup: a blend of every value (T = {})", temperature_text(temperature)),
                    [&] { show_soft(lesson, book, r, temperature); });
        lesson.step("smooth",
                    fmt::format("Why a blend is useful: it changes smoothly (a query moving from {} to {})",
                                people[r.path.from], people[r.path.to]),
                    [&] { show_path(lesson, book, r.path); });
        lesson.step("temperature", "Temperature: from the soft lookup to the hard one",
                    [&] { show_temperatures(lesson, book, r.sweep, temperature); });
        lesson.step("sentence", "The same on a sentence: each token's context vector",
                    [&] { show_sentence(lesson, seq, r, temperature); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), book, seq, r, temperature); });
        lesson.present();
    });
}
