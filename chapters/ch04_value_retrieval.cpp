// Chapter 04 · Value retrieval: why keys and values differ
//
// Attention is a lookup. A query is compared with keys, but what comes back is
// values: in a phonebook you find a person by who they are (the key) and you
// get back their phone number (the value). The two need not even have the same
// width.
//
//   hard lookup:  answer = values[argmax_i (q · k_i)]          exactly one row
//   soft lookup:  answer = Σ_i w_i v_i,  w = softmax(q · Kᵀ / T)  a blend of every row
//
// A low temperature T turns the soft lookup into the hard one. Then the same
// on a sentence: each token's context vector is the weighted sum of the value
// vectors, output = weights · V (with V = X until chapter 05 learns V).
//
// Shapes: phonebook keys (m × d_k), values (m × d_v), queries (q × d_k),
// scores and weights (q × m), answers (q × d_v); X (n × d_model), sentence
// weights (n × n), output (n × d_model).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/lesson/combination.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/math/softmax.hpp"
#include "common/lesson/text_table.hpp"

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

// scores / T, refused when T is so small that a score overflows float.
Matrix divide_by_temperature(const Matrix& scores, float temperature) {
    Matrix scaled = scores / temperature;
    if (!all_finite(scaled))
        throw InputError(fmt::format("--temperature {:g}: too small, scores / T overflow a float", temperature));
    return scaled;
}

// How far the best entry of a row leads the second best (0 on a tie).
float lead_in_row(const Matrix& m, std::size_t i) {
    const std::size_t best = argmax_of_row(m, i);
    float second = -INFINITY;
    for (std::size_t j = 0; j < cols(m); ++j)
        if (j != best) second = std::max(second, m(i, j));
    return cols(m) < 2 ? INFINITY : m(i, best) - second;
}

// One-hot rows: 1 at each row's best score, 0 elsewhere. (q × m)
Matrix one_hot_of_best(const Matrix& scores) {
    Matrix one_hot = xt::zeros<float>(scores.shape());
    for (std::size_t i = 0; i < rows(scores); ++i) one_hot(i, argmax_of_row(scores, i)) = 1.0f;
    return one_hot;
}

// ‖a_i − b_i‖, the Euclidean distance between row i of a and row i of b.
float row_distance(const Matrix& a, const Matrix& b, std::size_t i) {
    double sum = 0.0;
    for (std::size_t d = 0; d < cols(a); ++d) sum += double(a(i, d) - b(i, d)) * double(a(i, d) - b(i, d));
    return static_cast<float>(std::sqrt(sum));
}

std::string row_text(const Matrix& m, std::size_t i, int decimals) {
    std::vector<std::string> parts;
    for (std::size_t d = 0; d < cols(m); ++d) parts.push_back(format_number(m(i, d), decimals));
    return "(" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
}

// ‖m_s − m_(s−1)‖: how far row s moved from the row above.
float step_length(const Matrix& m, std::size_t s) {
    double sum = 0.0;
    for (std::size_t d = 0; d < cols(m); ++d) sum += double(m(s, d) - m(s - 1, d)) * double(m(s, d) - m(s - 1, d));
    return static_cast<float>(std::sqrt(sum));
}

std::string temperature_text(float temperature) { return fmt::format("{:g}", temperature); }

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

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch04_value_retrieval", "Chapter 04 · Value retrieval: why keys and values differ");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\" (for the sentence in step 7)");
    float temperature = 1.0f;
    lesson.cli()
        .add_option("--temperature", temperature,
                    "T in softmax(scores / T), for the phonebook and the sentence (T > 0)")
        ->check(CLI::Validator(
            [](std::string& text) {
                try {
                    if (std::stod(text) > 0.0) return std::string();
                } catch (const std::exception&) {
                }
                return "expected a number greater than 0, got " + text;
            },
            ""))
        ->capture_default_str();

    return lesson.run(argc, argv, [&] {
        const Phonebook book = load_phonebook();
        const Sequence seq = load_sequence(input, default_sentence);
        const Labels& people = book.keys.rows;
        const Matrix& keys = book.keys.values;        // (m × d_k)
        const Matrix& values = book.values.values;    // (m × d_v)
        const Matrix& queries = book.queries.values;  // (q × d_k)
        const Matrix scores = matmul_transposed(queries, keys);               // (q × m)
        const Matrix scaled = divide_by_temperature(scores, temperature);     // (q × m)
        const float root_d = std::sqrt(static_cast<float>(cols(seq.X)));
        const Matrix sentence_scaled =
            divide_by_temperature(matmul_transposed(seq.X, seq.X) / root_d, temperature);  // (n × n)
        const std::size_t m = rows(keys), q_count = rows(queries);

        // ── Step 1: keys and values ─────────────────────────────────────────
        lesson.step("A phonebook: keys to find someone, values to get back");
        lesson.say(fmt::format(
            "You recognise a person by what they look like: that is the key, {} numbers each.\n"
            "What you want from the phonebook is their phone number: that is the value, {}\n"
            "numbers each. Keys are compared, values are returned; they need not even have\n"
            "the same width (d_k = {}, d_v = {}).",
            cols(keys), cols(values), cols(keys), cols(values)));
        lesson.show("phonebook_keys", "", keys, people, book.keys.columns, 1);
        lesson.show("phonebook_values", "", values, people, book.values.columns, 0);

        // ── Step 2: queries and scores ──────────────────────────────────────
        lesson.step("Queries, and how well each matches each key");
        lesson.say(
            "A query describes who we are looking for, in the columns of the keys. Its\n"
            "score against a key is their dot product, as in chapter 01.");
        lesson.show("phonebook_queries", "", queries, book.queries.rows, book.queries.columns, 1);
        lesson.show("phonebook_scores", "queries · keysᵀ", scores, book.queries.rows, people, 2);

        // ── Step 3: the hard lookup ─────────────────────────────────────────
        lesson.step("Hard lookup: the value of the best key, and nothing else");
        lesson.say(
            "A dictionary lookup takes the key that matches best (argmax) and returns its\n"
            "value: exactly one row of the values. As weights, that is a one-hot row.");
        const Matrix hard_weights = one_hot_of_best(scores);  // (q × m)
        const Matrix hard = matmul(hard_weights, values);     // (q × d_v) one row of values each
        lesson.show("phonebook_hard_weights", "1 at argmax of each row of scores", hard_weights, book.queries.rows,
                    people, 0);
        lesson.show("phonebook_hard", "phonebook_hard_weights · values", hard, book.queries.rows,
                    book.values.columns, 1);
        for (std::size_t i = 0; i < q_count; ++i)
            if (lead_in_row(scores, i) == 0.0f)
                lesson.say(fmt::format(
                    "\n\"{}\" scores several keys equally ({}): argmax has to break the tie, and\n"
                    "gives {}. The answer is arbitrary.",
                    book.queries.rows[i], format_number(scores(i, argmax_of_row(scores, i)), 2),
                    people[argmax_of_row(scores, i)]));

        // ── Step 4: the soft lookup ─────────────────────────────────────────
        lesson.step(fmt::format("Soft lookup: a blend of every value (T = {})", temperature_text(temperature)));
        lesson.say(
            "Attention does not pick one key. It turns the scores into weights that sum\n"
            "to 1 and returns the weighted sum of all the values: answer = weights · values.");
        const std::string soft_formula =
            temperature == 1.0f ? "softmax(phonebook_scores)"
                                : fmt::format("softmax(phonebook_scores / {})", temperature_text(temperature));
        const Matrix weights = softmax_rows(scaled);     // (q × m)
        const Matrix soft = matmul(weights, values);     // (q × d_v)
        lesson.show("phonebook_weights", soft_formula, weights, book.queries.rows, people, 3);
        lesson.show("phonebook_output", "phonebook_weights · values", soft, book.queries.rows, book.values.columns,
                    1);
        lesson.say("\nThe same, written out as Σ_i w_i v_i, largest weight first:\n");
        Matrix loop = Matrix::from_shape({q_count, cols(values)});  // the loop Σ_i w_i v_i, filled below
        std::size_t blend = q_count;  // the query whose two best keys are closest (not tied)
        for (std::size_t i = 0; i < q_count; ++i) {
            for (std::size_t d = 0; d < cols(values); ++d) {
                float sum = 0.0f;
                for (std::size_t j = 0; j < m; ++j) sum += weights(i, j) * values(j, d);
                loop(i, d) = sum;
            }
            const Combination terms = combination_of_row(weights, i, m);
            lesson.say(fmt::format("{} = {}\n    = {}", book.queries.rows[i], format_combination(terms, people),
                                   row_text(loop, i, 1)));
            const float lead = lead_in_row(scores, i);
            if (lead > 0.0f && (blend == q_count || lead < lead_in_row(scores, blend))) blend = i;
        }
        // The two best keys of the most ambiguous query (the first two keys if none is).
        std::size_t from = 0, to = std::min<std::size_t>(1, m - 1);
        if (blend < q_count) {
            from = argmax_of_row(scores, blend);
            Matrix others = scores;
            others(blend, from) = -INFINITY;
            to = argmax_of_row(others, blend);
            lesson.say(fmt::format(
                "\n\"{}\" matches {} ({}) and {} ({}) partly, and gets back {}:\n"
                "a blend of phone numbers, which is nobody's number. For a phonebook that is\n"
                "useless; for a network it is the point, as the next step shows.",
                book.queries.rows[blend], people[from], format_number(scores(blend, from), 2), people[to],
                format_number(scores(blend, to), 2), row_text(soft, blend, 1)));
        }

        // ── Step 5: why a blend is useful ───────────────────────────────────
        // Move a query in a straight line from one key to another and watch both answers.
        lesson.step(fmt::format("Why a blend is useful: it changes smoothly (a query moving from {} to {})",
                                people[from], people[to]));
        constexpr std::size_t path_steps = 10;
        Matrix path = Matrix::from_shape({path_steps + 1, cols(keys)});  // (11 × d_k) the moving query
        for (std::size_t s = 0; s <= path_steps; ++s) {
            const float t = static_cast<float>(s) / path_steps;
            for (std::size_t d = 0; d < cols(keys); ++d) path(s, d) = (1.0f - t) * keys(from, d) + t * keys(to, d);
        }
        const Matrix path_scores = matmul_transposed(path, keys);                                     // (11 × m)
        const Matrix path_weights = softmax_rows(divide_by_temperature(path_scores, temperature));   // (11 × m)
        const Matrix path_soft = matmul(path_weights, values);                                      // (11 × d_v)
        const Matrix path_hard = matmul(one_hot_of_best(path_scores), values);                      // (11 × d_v)
        lesson.say(fmt::format(
            "The query q(t) = (1 − t)·k_{} + t·k_{} slides from {}'s key (t = 0) to {}'s\n"
            "(t = 1). ‖Δ‖ is how far the answer moved since the row above.",
            people[from], people[to], people[from], people[to]));
        TextRow header{"t", "w " + people[from], "w " + people[to]};
        for (const auto& column : book.values.columns) header.push_back("soft " + column);
        header.insert(header.end(), {"‖Δ soft‖", "hard lookup", "‖Δ hard‖"});
        std::vector<TextRow> path_rows;
        float largest_soft_step = 0.0f, largest_hard_step = 0.0f;
        std::size_t jump = 0;  // the row where the hard answer changes
        for (std::size_t s = 0; s <= path_steps; ++s) {
            TextRow row{fmt::format("{:.1f}", static_cast<float>(s) / path_steps),
                        fmt::format("{:.2f}", path_weights(s, from)), fmt::format("{:.2f}", path_weights(s, to))};
            for (std::size_t d = 0; d < cols(values); ++d) row.push_back(fmt::format("{:.1f}", path_soft(s, d)));
            const float soft_step = s == 0 ? 0.0f : step_length(path_soft, s);
            const float hard_step = s == 0 ? 0.0f : step_length(path_hard, s);
            if (hard_step > largest_hard_step) largest_hard_step = hard_step, jump = s;
            largest_soft_step = std::max(largest_soft_step, soft_step);
            row.insert(row.end(), {s == 0 ? "" : fmt::format("{:.1f}", soft_step),
                                   people[argmax_of_row(path_scores, s)],
                                   s == 0 ? "" : fmt::format("{:.1f}", hard_step)});
            path_rows.push_back(row);
        }
        fmt::print("\n{}", format_table(header, path_rows));
        if (jump > 0)
            lesson.say(fmt::format(
                "\nThe hard answer stands still, then jumps by {:.1f} between t = {:.1f} and {:.1f}: its\n"
                "derivative is 0 wherever it has one, so it never tells which way to move the\n"
                "query. The soft answer moves by at most {:.1f} per step, a little for every little\n"
                "move: it is differentiable, and gradient descent can follow its slope to learn\n"
                "the queries, keys and values. That is why attention blends.",
                largest_hard_step, static_cast<float>(jump - 1) / path_steps,
                static_cast<float>(jump) / path_steps, largest_soft_step));

        // ── Step 6: temperature ─────────────────────────────────────────────
        lesson.step("Temperature: from the soft lookup to the hard one");
        lesson.say(
            "Dividing the scores by a temperature T before the softmax stretches their\n"
            "differences: a low T gives the best key almost all the weight, and the soft\n"
            "answer tends to the hard one. (Chapter 03's 1/√d_k is a temperature of √d_k.)\n");
        std::vector<float> temperatures{2.0f, 1.0f, 0.5f, 0.25f, 0.1f, 0.05f, 0.02f, 0.01f};
        if (std::find(temperatures.begin(), temperatures.end(), temperature) == temperatures.end()) {
            temperatures.push_back(temperature);
            std::sort(temperatures.rbegin(), temperatures.rend());
        }
        TextRow query_header{"T"};
        query_header.insert(query_header.end(), book.queries.rows.begin(), book.queries.rows.end());
        std::vector<TextRow> best_weight_rows, distance_rows;
        for (const float T : temperatures) {
            const Matrix w = softmax_rows(divide_by_temperature(scores, T));  // (q × m)
            const Matrix answer = matmul(w, values);                        // (q × d_v)
            const std::string label = temperature_text(T) + (T == temperature ? " ←" : "");
            TextRow weight_row{label}, distance_row{label};
            for (std::size_t i = 0; i < q_count; ++i) {
                weight_row.push_back(fmt::format("{:.3f}", w(i, argmax_of_row(scores, i))));
                distance_row.push_back(fmt::format("{:.1f}", row_distance(answer, hard, i)));
            }
            best_weight_rows.push_back(weight_row);
            distance_rows.push_back(distance_row);
        }
        lesson.say("The weight on the best key:\n");
        fmt::print("{}", format_table(query_header, best_weight_rows));
        lesson.say("\nThe distance ‖soft answer − hard answer‖:\n");
        fmt::print("{}", format_table(query_header, distance_rows));
        lesson.say(fmt::format(
            "\n(← marks the T of steps 4 and 5.) A query that is k times longer has k times\n"
            "the scores: being long is the same as a lower temperature. A query that ties\n"
            "keys never sharpens: no temperature makes one of equal scores win."));

        // ── Step 7: the same on a sentence ──────────────────────────────────
        lesson.step("The same on a sentence: each token's context vector");
        const Labels& tokens = seq.tokens;
        const std::size_t n = tokens.size();
        lesson.say(fmt::format(
            "A sentence is a phonebook that looks itself up: every token is a query, every\n"
            "token a key and a value. Without learned projections (chapter 05), the query,\n"
            "key and value of a token are all its embedding: K = V = X, and\n"
            "weights = softmax(X · Xᵀ / √d_model{}) with d_model = {}.",
            temperature == 1.0f ? "" : " / T", cols(seq.X)));
        const Matrix& X = seq.X;  // (n × d_model)
        lesson.show("X", "", X, tokens, seq.dimensions, 1);
        const Matrix sentence_weights = softmax_rows(sentence_scaled);  // (n × n)
        const Matrix output = matmul(sentence_weights, X);              // (n × d_model)  weights · V, V = X
        const std::string sentence_formula =
            temperature == 1.0f ? "softmax(X · Xᵀ / √d_model)"
                                : fmt::format("softmax(X · Xᵀ / √d_model / {})", temperature_text(temperature));
        lesson.show("weights", sentence_formula, sentence_weights, tokens, tokens, 3);
        lesson.show("output", "weights · V, with V = X", output, tokens, seq.dimensions, 2);
        lesson.say(
            "\nRow i of the output is token i's context vector: the embeddings of the\n"
            "sentence, mixed by row i of the weights. Read as a sum of the tokens' vectors:\n");
        std::vector<Combination> combinations;  // every row's, printed or not: the self-check tests them all
        double combination_error = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            combinations.push_back(combination_of_row(sentence_weights, i, 4, 0.02f));
            Matrix output_row = Matrix::from_shape({1, cols(X)});
            for (std::size_t d = 0; d < cols(X); ++d) output_row(0, d) = output(i, d);
            combination_error =
                std::max(combination_error, max_abs_difference(combine_rows(combinations[i], X), output_row));
        }
        for (const std::size_t i : elided_indices(n))  // a long --input: the first and last rows
            lesson.say(i == elided ? "⋮"
                                   : fmt::format("{} = {}", tokens[i], format_combination(combinations[i], tokens)));
        const std::size_t self_best = [&] {
            std::size_t count = 0;
            for (std::size_t i = 0; i < n; ++i) count += tokens[argmax_of_row(sentence_weights, i)] == tokens[i];
            return count;
        }();
        float mean_largest = 0.0f;  // how peaked the rows are, on average
        for (std::size_t i = 0; i < n; ++i)
            mean_largest += sentence_weights(i, argmax_of_row(sentence_weights, i)) / static_cast<float>(n);
        lesson.say(fmt::format(
            "\nIn {} of {} rows the largest weight is on the token itself (or a copy of it),\n"
            "because nothing is as similar to a vector as itself (chapter 01's diagonal).\n"
            "The largest weight of a row is {:.2f} on average:\n{}\n"
            "Chapter 05 gives each token a query, a key and a value of its own, so that a\n"
            "token can look for something other than itself.",
            self_best, n, mean_largest,
            mean_largest < 0.3f ? "the scores of these embeddings are small and close together, so each\n"
                                  "context vector is near the average of the sentence."
                                : "at this temperature a token takes mostly itself, and its context vector\n"
                                  "is little more than its own embedding."));

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        float largest_value = 1.0f;
        for (const float v : values) largest_value = std::max(largest_value, std::abs(v));
        const double tolerance = 1e-5 * largest_value;  // float rounding grows with the size of the values
        check.close("the soft lookup weights · values equals the loop Σ_i w_i v_i", max_abs_difference(loop, soft),
                    tolerance);
        check.close("every row of phonebook_weights and of weights sums to 1",
                    std::max(worst_row_sum_error(weights), worst_row_sum_error(sentence_weights)),
                    row_sum_tolerance(std::max(m, n)));
        const Matrix cold = matmul(softmax_rows(divide_by_temperature(scores, check_temperature)), values);
        double cold_error = 0.0;
        std::size_t checked = 0;
        for (std::size_t i = 0; i < q_count; ++i)
            if (lead_in_row(scores, i) >= smallest_gap) {
                cold_error = std::max(cold_error, double(row_distance(cold, hard, i)));
                ++checked;
            }
        check.close(fmt::format("at T = {:g} soft = hard (the {} queries with one best key)", check_temperature,
                                checked),
                    cold_error, 1e-4 * largest_value);
        check.close("each output row equals its printed combination Σ_j w_ij x_j", combination_error,
                    scaled_tolerance(1e-5, X));  // rounding grows with the size of the embeddings
        // Weights ≤ 1 and outputs of the size of X: float rounding is relative to both.
        check.close("output = softmax(X · Xᵀ / √d / T) · X, looped in double",
                    attention_error_against_double(X, temperature, sentence_weights, output),
                    scaled_tolerance(1e-5, X));
    });
}
