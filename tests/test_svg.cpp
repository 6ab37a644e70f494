// Pictures: the SVG text is well-formed XML, holds one cell per entry with the
// right colours, escapes the learner's labels, and places the points of a plot
// where their (log) scales say; Lesson writes them only at the end of a good run.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "common/display/colormap.hpp"
#include "common/display/svg.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// ── A tiny XML reader, just strict enough to refuse what a browser refuses ──
struct Element {
    std::string name;
    std::map<std::string, std::string> attributes;
    std::string text;  // the text directly inside, entities kept as written
};

bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
}

// Text and attribute values: no raw '<' or '>', and '&' only as an entity.
bool escaped(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' || s[i] == '>') return false;
        if (s[i] != '&') continue;
        const auto end = s.find(';', i);
        if (end == std::string::npos) return false;
        const std::string entity = s.substr(i + 1, end - i - 1);
        if (entity != "amp" && entity != "lt" && entity != "gt" && entity != "quot" && entity != "apos" &&
            !(entity.size() > 1 && entity[0] == '#'))
            return false;
    }
    return true;
}

// Parses `xml`; on success returns every element in document order, on a
// mistake throws std::runtime_error saying where.
std::vector<Element> parse_xml(const std::string& xml) {
    std::vector<Element> elements;
    std::vector<std::size_t> open;  // indices into elements
    std::size_t roots = 0, i = 0;
    const auto fail = [&](const std::string& why) { throw std::runtime_error(fmt::format("at {}: {}", i, why)); };
    if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
    while (i < xml.size()) {
        if (xml[i] != '<') {
            const auto next = std::min(xml.find('<', i), xml.size());
            const std::string text = xml.substr(i, next - i);
            if (!escaped(text)) fail("unescaped text: " + text);
            if (open.empty() && text.find_first_not_of(" \n\t\r") != std::string::npos) fail("text outside the root");
            if (!open.empty()) elements[open.back()].text += text;
            i = next;
            continue;
        }
        if (xml.compare(i, 4, "<!--") == 0) {
            i = xml.find("-->", i);
            if (i == std::string::npos) fail("unclosed comment");
            i += 3;
            continue;
        }
        const bool closing = xml.compare(i, 2, "</") == 0;
        i += closing ? 2 : 1;
        std::string name;
        while (i < xml.size() && name_char(xml[i])) name += xml[i++];
        if (name.empty()) fail("a tag without a name");
        if (closing) {
            if (i >= xml.size() || xml[i] != '>') fail("</" + name + " not closed by >");
            ++i;
            if (open.empty() || elements[open.back()].name != name) fail("</" + name + "> closes nothing open");
            open.pop_back();
            continue;
        }
        Element e;
        e.name = name;
        while (true) {
            while (i < xml.size() && xml[i] == ' ') ++i;
            if (i >= xml.size()) fail("<" + name + " not closed");
            if (xml[i] == '>' || xml.compare(i, 2, "/>") == 0) break;
            std::string attribute;
            while (i < xml.size() && name_char(xml[i])) attribute += xml[i++];
            if (attribute.empty() || i + 1 >= xml.size() || xml[i] != '=' || xml[i + 1] != '"')
                fail("attribute of <" + name + "> is not name=\"value\"");
            const auto end = xml.find('"', i + 2);
            if (end == std::string::npos) fail("unclosed attribute value");
            const std::string value = xml.substr(i + 2, end - i - 2);
            if (!escaped(value)) fail("unescaped attribute value: " + value);
            if (!e.attributes.emplace(attribute, value).second) fail("attribute " + attribute + " twice");
            i = end + 1;
            if (i < xml.size() && xml[i] != ' ' && xml[i] != '>' && xml[i] != '/') fail("no space between attributes");
        }
        if (open.empty() && ++roots > 1) fail("a second root element");
        const bool self_closing = xml[i] == '/';
        i += self_closing ? 2 : 1;
        elements.push_back(e);
        if (!self_closing) open.push_back(elements.size() - 1);
    }
    if (!open.empty()) throw std::runtime_error("<" + elements[open.back()].name + "> is never closed");
    if (roots != 1) throw std::runtime_error("no root element");
    return elements;
}

std::vector<Element> with_class(const std::vector<Element>& elements, const std::string& cls) {
    std::vector<Element> out;
    for (const auto& e : elements) {
        const auto it = e.attributes.find("class");
        if (it != e.attributes.end() && it->second == cls) out.push_back(e);
    }
    return out;
}

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

// The (x, y) pairs of a polyline's points attribute.
std::vector<std::pair<double, double>> points_of(const Element& polyline) {
    std::vector<std::pair<double, double>> out;
    std::istringstream in(polyline.attributes.at("points"));
    std::string pair;
    while (in >> pair) {
        const auto comma = pair.find(',');
        out.emplace_back(std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1)));
    }
    return out;
}

}  // namespace

TEST_CASE("the XML reader used below refuses what is not well-formed") {
    CHECK_NOTHROW(parse_xml("<svg a=\"1\"><g><text>a&lt;b&amp;c</text></g></svg>"));
    CHECK_THROWS(parse_xml("<svg><g></svg>"));                     // unbalanced
    CHECK_THROWS(parse_xml("<svg a=1></svg>"));                    // unquoted attribute
    CHECK_THROWS(parse_xml("<svg><text>a<b&c</text></svg>"));      // raw < and &
    CHECK_THROWS(parse_xml("<svg><text>a&b</text></svg>"));        // raw &
    CHECK_THROWS(parse_xml("<svg a=\"x<y\"></svg>"));              // raw < in a value
    CHECK_THROWS(parse_xml("<svg></svg><svg></svg>"));             // two roots
}

TEST_CASE("a heat map: well-formed, one cell per entry, title with name and shape, escaped labels") {
    const Matrix m = {{0.0f, 0.25f, 1.0f}, {0.5f, 0.75f, 0.125f}};
    const std::string svg = heat_map_svg("weights", "softmax(scores)", m, {"a<b&c", "cat"}, {"x", "y>z", "'q'"}, 3);
    const auto elements = parse_xml(svg);
    CHECK(elements.front().name == "svg");

    const auto cells = with_class(elements, "cell");
    CHECK(cells.size() == 2 * 3);
    const auto title = with_class(elements, "title");
    REQUIRE(title.size() == 1);
    CHECK(title[0].text.find("weights") != std::string::npos);
    CHECK(title[0].text.find("(2 × 3)") != std::string::npos);
    CHECK(title[0].text.find("softmax(scores)") != std::string::npos);

    // The learner's tokens are escaped, never written raw.
    CHECK(svg.find("a&lt;b&amp;c") != std::string::npos);
    CHECK(svg.find("a<b&c") == std::string::npos);
    CHECK(svg.find("y&gt;z") != std::string::npos);
    CHECK(with_class(elements, "row-label").size() == 2);
    CHECK(with_class(elements, "col-label").size() == 3);

    // Row-major cells on the terminal's viridis scale: 0 is its dark end, 1 its yellow end.
    CHECK(cells[0].attributes.at("fill") == hex(viridis(0.0)));
    CHECK(cells[2].attributes.at("fill") == hex(viridis(1.0)));
    CHECK(cells[3].attributes.at("fill") == hex(viridis(0.5)));
    CHECK(cells[0].attributes.at("fill") == "#440154");
    CHECK(cells[2].attributes.at("fill") == "#fde725");
    // The values are in the cells, with the decimals asked for, dark on yellow, light on purple.
    const auto values = with_class(elements, "value");
    REQUIRE(values.size() == 6);
    CHECK(values[1].text == "0.250");
    CHECK(values[5].text == "0.125");
    CHECK(values[0].attributes.at("fill") == "#ffffff");
    CHECK(values[2].attributes.at("fill") == "#000000");
    // The colour bar names both ends of the range, and the background is opaque.
    CHECK(with_class(elements, "scale-low").at(0).text == "0.000");
    CHECK(with_class(elements, "scale-high").at(0).text == "1.000");
    const auto background = with_class(elements, "background");
    REQUIRE(background.size() == 1);
    CHECK(background[0].attributes.at("fill") == "#ffffff");
    CHECK(background[0].attributes.at("width") == elements.front().attributes.at("width"));
}

TEST_CASE("a heat map of a −inf mask: grey cells, named in the legend, finite cells on the scale") {
    const float inf = std::numeric_limits<float>::infinity();
    const Matrix mask = {{0.0f, -inf}, {0.0f, 0.0f}};
    const std::string svg = heat_map_svg("mask", "", mask, {"a", "b"}, {"a", "b"}, 1);
    const auto elements = parse_xml(svg);
    const auto cells = with_class(elements, "cell");
    REQUIRE(cells.size() == 4);
    CHECK(cells[1].attributes.at("fill") != cells[0].attributes.at("fill"));
    CHECK(cells[0].attributes.at("fill") == hex(viridis(0.5)));  // all finite values equal: the middle
    CHECK(with_class(elements, "swatch").size() == 1);
    CHECK(svg.find(">-inf</text>") != std::string::npos);
    CHECK(with_class(elements, "title").at(0).text == "mask   (2 × 2)");
}

TEST_CASE("a big heat map keeps every cell but leaves out values that do not fit") {
    Matrix m = Matrix::from_shape({40, 50});
    for (std::size_t i = 0; i < m.size(); ++i) m.flat(i) = float(i) / 1000.0f;
    const auto elements = parse_xml(heat_map_svg("weights", "", m, {}, {}, 3));
    CHECK(with_class(elements, "cell").size() == 40 * 50);
    CHECK(with_class(elements, "value").empty());
    // Cells are square and the whole grid fits in 560 px.
    const auto cell = with_class(elements, "cell").at(0);
    CHECK(std::stod(cell.attributes.at("width")) * 50 <= 560.0);
    CHECK(cell.attributes.at("width") == cell.attributes.at("height"));
}

TEST_CASE("slanted column labels of narrow cells: every other one, so that no two overlap") {
    // 50 × 16 like chapter 09's PE_long: 11 px cells, labels "sin0", "cos0", … slanted at −45°,
    // which stand 11 · sin 45° = 7.8 px apart, less than a line of 8 px text.
    Matrix m = Matrix::from_shape({50, 16});
    m.fill(0.5f);
    Labels columns;
    for (std::size_t i = 0; i < 8; ++i) columns.push_back("sin" + std::to_string(i)), columns.push_back("cos" + std::to_string(i));
    const auto elements = parse_xml(heat_map_svg("PE_long", "", m, {}, columns, 2));
    const auto labels = with_class(elements, "col-label");
    REQUIRE(labels.size() == 8);
    CHECK(labels[0].text == "sin0");
    CHECK(labels[1].text == "sin1");
    // Wide cells keep every label, slanted or not.
    Matrix wide_matrix = Matrix::from_shape({3, 16});
    wide_matrix.fill(0.5f);
    const auto wide = parse_xml(heat_map_svg("w", "", wide_matrix, {}, columns, 2));
    CHECK(with_class(wide, "col-label").size() == 16);
}

TEST_CASE("a log–log plot: a power law is a straight line of evenly spaced points") {
    const std::vector<Series> series{{"n²", {1, 10, 100, 1000}, {1, 100, 1e4, 1e6}},
                                     {"n <linear> & cheap", {1, 10, 100, 1000}, {2, 20, 200, 2000}}};
    const std::string svg = line_plot_svg("Cost against n", {"n (tokens)", true}, {"operations", true}, series);
    const auto elements = parse_xml(svg);
    CHECK(with_class(elements, "series").size() == 2);
    CHECK(with_class(elements, "legend-label").size() == 2);
    CHECK(with_class(elements, "legend-label").at(1).text == "n &lt;linear&gt; &amp; cheap");
    CHECK(with_class(elements, "x-label").at(0).text.find("n (tokens)") != std::string::npos);
    CHECK(with_class(elements, "x-label").at(0).text.find("log") != std::string::npos);
    CHECK(with_class(elements, "title").at(0).text == "Cost against n");

    std::vector<Element> lines;
    for (const auto& e : elements)
        if (e.name == "polyline") lines.push_back(e);
    REQUIRE(lines.size() == 2);
    const auto a = points_of(lines[0]), b = points_of(lines[1]);
    REQUIRE(a.size() == 4);
    REQUIRE(b.size() == 4);
    // Equal ratios are equal steps on a log axis; n² rises twice as steeply as n.
    const double dx = a[1].first - a[0].first, dy_a = a[0].second - a[1].second, dy_b = b[0].second - b[1].second;
    CHECK(dx > 0);
    for (std::size_t k = 1; k < 4; ++k) {
        CHECK(a[k].first - a[k - 1].first == doctest::Approx(dx).epsilon(0.01));
        CHECK(a[k - 1].second - a[k].second == doctest::Approx(dy_a).epsilon(0.01));
    }
    CHECK(dy_a == doctest::Approx(2 * dy_b).epsilon(0.01));
    // The ticks of a log axis are powers of ten.
    std::vector<std::string> x_ticks;
    for (const auto& t : with_class(elements, "x-tick")) x_ticks.push_back(t.text);
    CHECK(x_ticks == std::vector<std::string>{"1", "10", "100", "1000"});
    std::vector<std::string> y_ticks;
    for (const auto& t : with_class(elements, "y-tick")) y_ticks.push_back(t.text);
    CHECK(y_ticks.back() == "10⁶");
}

TEST_CASE("a linear plot: points at their values, and a point a log axis cannot show breaks the line") {
    const auto elements = parse_xml(line_plot_svg("loss", {"step", false}, {"loss", false}, {{"train", {0, 1, 2}, {0, 9, 10}}}));
    std::vector<Element> lines;
    for (const auto& e : elements)
        if (e.name == "polyline") lines.push_back(e);
    REQUIRE(lines.size() == 1);
    const auto p = points_of(lines[0]);
    REQUIRE(p.size() == 3);
    CHECK(p[1].first - p[0].first == doctest::Approx(p[2].first - p[1].first).epsilon(0.01));
    CHECK(p[0].second - p[1].second == doctest::Approx(9 * (p[1].second - p[2].second)).epsilon(0.01));

    // y = 0 has no place on a log axis: left out, the line goes on after it.
    const auto log_elements =
        parse_xml(line_plot_svg("loss", {"step", false}, {"loss", true}, {{"train", {0, 1, 2, 3}, {5, 0, 2, 1}}}));
    std::size_t polylines = 0;
    for (const auto& e : log_elements) polylines += e.name == "polyline";
    CHECK(polylines == 2);

    CHECK_THROWS_AS(line_plot_svg("t", {"x"}, {"y"}, {}), std::invalid_argument);
    CHECK_THROWS_AS(line_plot_svg("t", {"x"}, {"y"}, {{"s", {1, 2}, {1}}}), std::invalid_argument);
}

namespace {

int run_lesson(const std::vector<std::string>& args, const std::function<void(Lesson&)>& body) {
    Lesson lesson("test_lesson", "A lesson under test");
    std::vector<std::string> words{"test_lesson"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    return lesson.run(int(argv.size()), argv.data(), [&] { body(lesson); });
}

}  // namespace

TEST_CASE("--svg writes the pictured matrices and the plots at the end, and nothing after an error") {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("test_svg_{}", ::getpid());
    std::filesystem::remove_all(dir);
    const Matrix m = {{0.5f, 0.5f}, {0.25f, 0.75f}}, scores = m, weights = m, X = m, mask = m;
    Matrix big = Matrix::from_shape({65, 2});
    big.fill(0.5f);
    const auto body = [&](Lesson& lesson) {
        lesson.labels("ab", {"a", "b"});
        lesson.labels("pq", {"p", "q"});
        lesson.list({{"scores", scores, "", "ab", "ab"}, {"weights", weights, "", "ab", "ab"}, {"X", X, "", "ab", "pq"},
                     {"mask", mask, "", "ab", "ab"}, {"big_weights", big, ""}});
        lesson.step("s", "Shown", [&] {
            lesson.show(scores);                       // no picture
            lesson.show(weights, Style().svg());       // a picture
            lesson.show(X, Style().decimals(1).svg());
            lesson.show(mask);                         // the name decides nothing
            lesson.show(big, Style().svg());           // too big to draw
        });
        lesson.present();
        lesson.plot("loss", "Loss", {"step"}, {"loss"}, {{"train", {0, 1}, {2, 1}}});
    };
    CHECK(run_lesson({"--svg", dir.string()}, body) == 0);
    CHECK(std::filesystem::exists(dir / "weights.svg"));
    CHECK(std::filesystem::exists(dir / "X.svg"));
    CHECK(std::filesystem::exists(dir / "loss.svg"));
    CHECK_FALSE(std::filesystem::exists(dir / "scores.svg"));
    CHECK_FALSE(std::filesystem::exists(dir / "mask.svg"));
    CHECK_FALSE(std::filesystem::exists(dir / "big_weights.svg"));
    std::ifstream written(dir / "weights.svg");
    const std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
    CHECK(text == heat_map_svg("weights", "", m, {"a", "b"}, {"a", "b"}, 3));

    // A body that stops on bad input writes no picture at all.
    const auto failed = dir / "failed";
    CHECK(run_lesson({"--svg", failed.string()}, [&](Lesson& lesson) {
              lesson.list({{"weights", m, ""}});
              lesson.step("s", "Shown", [&] {
                  lesson.show(m, Style().svg());
                  throw InputError("--flag: bad");
              });
              lesson.present();
          }) == 2);
    CHECK(std::filesystem::is_empty(failed));

    // A directory that cannot be made is refused before the body runs.
    const auto file = dir / "a_file";
    std::ofstream(file) << "x";
    bool ran = false;
    CHECK(run_lesson({"--svg", (file / "sub").string()}, [&](Lesson&) { ran = true; }) == 2);
    CHECK_FALSE(ran);
    std::filesystem::remove_all(dir);
}
