#include "common/output/run_document.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <set>

#include <fmt/format.h>

namespace {

// A JSON string: quotes, backslashes and control characters escaped, and '<' as \u003c,
// so that no text (a learner's token "</script>") can end the element the data sits in.
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += {'\\', c};
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", int(c));
        else if (c == '<') out += "\\u003c";
        else out += c;
    }
    return out + "\"";
}

std::string quoted_list(const std::vector<std::string>& words) {
    std::string out = "[";
    for (std::size_t i = 0; i < words.size(); ++i) out += (i ? "," : "") + quoted(words[i]);
    return out + "]";
}

// The shortest text that reads back as the same float, added to `out`; JSON has no infinity
// or NaN, so those are the strings "inf", "-inf" and "nan".
void add_number(std::string& out, float value) {
    if (std::isnan(value)) out += "\"nan\"";
    else if (std::isinf(value)) out += value > 0 ? "\"inf\"" : "\"-inf\"";
    else fmt::format_to(std::back_inserter(out), "{}", value);
}

// A curve's coordinate: null where it cannot be drawn.
std::string coordinate(double value) { return std::isfinite(value) ? fmt::format("{}", value) : "null"; }

std::string coordinates(const std::vector<double>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + coordinate(values[i]);
    return out + "]";
}

std::string axis(const Axis& a) {
    return fmt::format("{{\"label\":{},\"log\":{}}}", quoted(a.label), a.log ? "true" : "false");
}

// The page holds at most this many rows and columns of a matrix, its top-left corner, as the
// terminal elides a large one: a heat map of more cells than a screen has pixels shows
// nothing more, and chapter 18's largest sizes would make a page of hundreds of megabytes
// (with the corner, at most about 200 KB a matrix). --dump writes the whole matrix.
constexpr std::size_t corner = 128;

// The labels of the first `count` rows or columns: the words of their kind, or their indices
// from 0 (as the terminal numbers them).
std::string labels(const Labels& words, std::size_t count) {
    if (words.empty()) return quoted_list(numbered("", count));
    return quoted_list(Labels(words.begin(), words.begin() + std::ptrdiff_t(count)));
}

const char* kind_name(MatrixKind kind) {
    switch (kind) {
        case MatrixKind::attention_weights: return "attention weights";
        case MatrixKind::scores: return "scores";
        case MatrixKind::mask: return "mask";
        case MatrixKind::indices: return "indices";
        case MatrixKind::general: break;
    }
    return "general";
}

std::string index_or_null(int index) { return index < 0 ? "null" : std::to_string(index); }

// A matrix's shape, and its values and labels in the corner the page holds.
std::string matrix_data(const ListedMatrix& m, const ListedMatrices& listed) {
    const Matrix& values = *m.matrix;
    const std::size_t shown_rows = std::min(rows(values), corner), shown_cols = std::min(cols(values), corner);
    std::string rows_text = "[";
    rows_text.reserve(shown_rows * shown_cols * 12);  // "-0.012345678," is the longest
    for (std::size_t i = 0; i < shown_rows; ++i) {
        rows_text += i ? ",[" : "[";
        for (std::size_t j = 0; j < shown_cols; ++j) {
            if (j) rows_text += ',';
            add_number(rows_text, values(i, j));
        }
        rows_text += "]";
    }
    rows_text += "]";
    return fmt::format(
        "{{\"name\":{},\"formula\":{},\"shape\":[{},{}],\"kind\":\"{}\",\"family\":{},\"head\":{},"
        "\"layer\":{},\"opens\":{},\"rows\":{},\"cols\":{},\"values\":{}}}",
        quoted(m.name), quoted(m.formula), rows(values), cols(values), kind_name(m.kind),
        m.family.empty() ? "null" : quoted(m.family), index_or_null(m.head), index_or_null(m.layer),
        m.opens.empty() ? "null" : quoted(m.opens), labels(listed.row_labels(m), shown_rows),
        labels(listed.col_labels(m), shown_cols), rows_text);
}

std::string summary_json(const RunSummary& s) {
    std::string grading = "null";
    if (s.graded) {
        std::string each;
        std::size_t differ = 0;
        for (std::size_t i = 0; i < s.compared.size(); ++i) {
            const RunSummary::Compared& c = s.compared[i];
            differ += !c.difference.empty();
            each += fmt::format("{}{{\"name\":{},\"equal\":{}{}}}", i ? ",\n" : "\n", quoted(c.name),
                                c.difference.empty() ? "true" : "false",
                                c.difference.empty() ? "" : ",\"difference\":" + quoted(c.difference));
        }
        grading = fmt::format("{{\"compared\":{},\"differ\":{},\"matrices\":[{}]}}", s.compared.size(), differ, each);
    }
    return fmt::format("{{\"self_checks\":{{\"passed\":{},\"failed\":{},\"not_checked\":{}}},\n\"grading\":{}}}",
                       s.passed, s.failed, s.not_checked, grading);
}

}  // namespace

void RunDocument::step(int number, const std::string& name, const std::string& heading) {
    end_checks();
    steps_.push_back({fmt::format("\"number\":{},\"name\":{},\"heading\":{}", number, quoted(name), quoted(heading)),
                      {}});
}

void RunDocument::block(std::string json) {
    if (!started_) return;
    end_checks();
    if (steps_.empty()) step(0, "", "");  // printed before the first step
    steps_.back().blocks.push_back(std::move(json));
}

void RunDocument::text(const std::string& text) { block(fmt::format("{{\"kind\":\"text\",\"text\":{}}}", quoted(text))); }

void RunDocument::caption(const std::string& text) {
    block(fmt::format("{{\"kind\":\"caption\",\"text\":{}}}", quoted(text)));
}

void RunDocument::matrix(const std::string& shown_as, const std::string& name, int decimals) {
    shown_.insert(name);
    block(fmt::format("{{\"kind\":{},\"name\":{},\"decimals\":{}}}", quoted(shown_as), quoted(name), decimals));
}

void RunDocument::side_by_side(const std::vector<std::pair<std::string, int>>& names_and_decimals) {
    std::string list = "[";
    for (const auto& [name, decimals] : names_and_decimals) shown_.insert(name);
    for (std::size_t i = 0; i < names_and_decimals.size(); ++i)
        list += fmt::format("{}{{\"name\":{},\"decimals\":{}}}", i ? "," : "", quoted(names_and_decimals[i].first),
                            names_and_decimals[i].second);
    block(fmt::format("{{\"kind\":\"side_by_side\",\"matrices\":{}]}}", list));
}

void RunDocument::table(const TextRow& header, const std::vector<TextRow>& rows, const std::vector<std::size_t>& bars) {
    std::string body = "[";
    for (std::size_t i = 0; i < rows.size(); ++i) body += (i ? "," : "") + quoted_list(rows[i]);
    const std::string columns = bars.empty() ? "" : fmt::format(",\"bars\":[{}]", fmt::join(bars, ","));
    block(fmt::format("{{\"kind\":\"table\",\"header\":{},\"rows\":{}]{}}}", quoted_list(header), body, columns));
}

void RunDocument::chart(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
                         const std::vector<Series>& series) {
    std::string curves = "[";
    for (std::size_t i = 0; i < series.size(); ++i)
        curves += fmt::format("{}{{\"label\":{},\"x\":{},\"y\":{}}}", i ? "," : "", quoted(series[i].label),
                              coordinates(series[i].x), coordinates(series[i].y));
    block(fmt::format("{{\"kind\":\"chart\",\"name\":{},\"title\":{},\"x\":{},\"y\":{},\"series\":{}]}}",
                      quoted(name), quoted(title), axis(x), axis(y), curves));
}

void RunDocument::check(const std::string& mark, const std::string& text) {
    const char* status = mark == "✓" ? "passed" : mark == "✗" ? "failed" : "not checked";
    if (started_)
        checks_.push_back(
            fmt::format("{{\"mark\":{},\"status\":\"{}\",\"text\":{}}}", quoted(mark), status, quoted(text)));
}

void RunDocument::end_checks() {
    if (checks_.empty()) return;
    std::string lines;
    for (std::size_t i = 0; i < checks_.size(); ++i) lines += (i ? "," : "") + checks_[i];
    checks_.clear();
    block(fmt::format("{{\"kind\":\"checks\",\"lines\":[{}]}}", lines));
}

std::string RunDocument::json(const std::string& program, const std::string& title, const ListedMatrices& listed,
                              const RunSummary& summary) {
    end_checks();
    std::string data =
        fmt::format("{{\"schema\":1,\"program\":{},\"title\":{},\"steps\":[", quoted(program), quoted(title));
    for (std::size_t s = 0; s < steps_.size(); ++s) {
        data += fmt::format("{}{{{},\"blocks\":[", s ? "," : "", steps_[s].head);
        for (std::size_t b = 0; b < steps_[s].blocks.size(); ++b) data += (b ? ",\n" : "\n") + steps_[s].blocks[b];
        data += "]}";
    }
    data += "],\n\"matrices\":[";
    // The families of the matrices shown (and those a shown table opens): the page switches
    // between a family's heads and layers.
    std::set<std::string> families;
    for (const ListedMatrix& m : listed.all())
        if (shown_.count(m.name)) families.insert({m.family, m.opens});
    const auto holds = [&](const ListedMatrix& m) {
        return !only_shown_ || shown_.count(m.name) || (!m.family.empty() && families.count(m.family));
    };
    bool first = true;
    for (const ListedMatrix& m : listed.all()) {
        if (!holds(m)) continue;
        data += first ? "\n" : ",\n";
        data += matrix_data(m, listed);
        first = false;
    }
    return data + "],\n\"summary\":" + summary_json(summary) + "}";
}
