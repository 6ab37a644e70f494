// The frame's blocks: spacing, tables elided, matrices side by side, charts.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/lesson/flag_values.hpp"
#include "common/lesson/lesson.hpp"
#include "tests/printed_by.hpp"

namespace {

// What `body` prints to stdout, and the exit code of the lesson it ran in.
std::string printed_by_lesson(const std::vector<std::string>& args, const std::function<void(Lesson&)>& body,
                              int* exit_code = nullptr) {
    Lesson lesson("test_lesson", "Title");
    std::vector<std::string> words{"test_lesson", "--color=never"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    int code = 0;
    const std::string text =
        printed_by([&] { code = lesson.run(int(argv.size()), argv.data(), [&] { body(lesson); }); });
    if (exit_code) *exit_code = code;
    return text;
}

}  // namespace

TEST_CASE("blocks are separated by one empty line, and the first sits right under the heading") {
    const Matrix m = {{1.0f, 2.0f}}, numbered = m;
    const std::string text = printed_by_lesson({}, [&](Lesson& lesson) {
        lesson.labels("r", {"r"});
        lesson.labels("ab", {"a", "b"});
        lesson.list({{"m", m, "", "r", "ab"}, {"numbered", numbered, ""}});
        lesson.step("one", "First", [&] {
            lesson.say("A paragraph.");
            lesson.say_under("Its caption.");
            lesson.show(m, Style().decimals(1));
            lesson.say("A table ends in a newline; no second one is added:\n" + format_table({"x"}, {{"1"}}));
        });
        lesson.step("two", "Second", [&] {
            lesson.show(numbered);
            lesson.table({"x"}, {{"1"}});
        });
        lesson.present();
    });
    CHECK(text ==
          "Title\n"
          "═════\n"
          "\n"
          "Step 1. First\n"
          "─────────────\n"
          "A paragraph.\n"
          "Its caption.\n"
          "\n"
          "m   (1 × 2)\n"
          "     a    b\n"
          "r  1.0  2.0\n"
          "\n"
          "A table ends in a newline; no second one is added:\n"
          "x\n"
          "─\n"
          "1\n"
          "\n"
          "Step 2. Second\n"
          "──────────────\n"
          "numbered   (1 × 2)\n"
          "       0      1\n"
          "0  1.000  2.000\n"
          "\n"
          "x\n"
          "─\n"
          "1\n");
}

TEST_CASE("a block after a self-check line is spaced from it") {
    const std::string text = printed_by_lesson({}, [&](Lesson& lesson) {
        lesson.step("checks", "Checks", [&] {
            lesson.checks().that("one holds", true);
            lesson.say("After the checks.");
        });
        lesson.present();
    });
    CHECK(text.find("✓ one holds\n\nAfter the checks.\n") != std::string::npos);
}

TEST_CASE("a long table prints its first and last five rows around ⋮") {
    std::vector<TextRow> body;
    for (int i = 0; i < 40; ++i) body.push_back({std::to_string(i)});
    const std::string text = printed_by_lesson({}, [&](Lesson& lesson) {
        lesson.step("t", "Table", [&] { lesson.table({"i"}, body); });
        lesson.present();
    });
    CHECK(text.find("\n 4\n ⋮\n35\n") != std::string::npos);  // a column of numbers: right-aligned
    CHECK(text.find("\n 5\n") == std::string::npos);
    CHECK(text.find("\n34\n") == std::string::npos);
    std::vector<TextRow> short_body(body.begin(), body.begin() + 16);
    const std::string all = printed_by_lesson({}, [&](Lesson& lesson) {
        lesson.step("t", "Table", [&] { lesson.table({"i"}, short_body); });
        lesson.present();
    });
    CHECK(all.find("⋮") == std::string::npos);
    CHECK(all.find("\n15\n") != std::string::npos);
}

TEST_CASE("matrices side by side are printed in one row and each kept for --dump") {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("test_frame_{}", ::getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const Matrix a = {{1.0f}}, b = {{2.0f}};
    const std::string text = printed_by_lesson({"--dump", dir.string()}, [&](Lesson& lesson) {
        lesson.list({{"left", a, "one"}, {"right", b, "two"}});
        lesson.step("s", "Side by side", [&] { lesson.show_side_by_side({{a, Style()}, {b, Style()}}); });
        lesson.present();
    });
    CHECK(text.find("left = one   (1 × 1)    right = two   (1 × 1)\n") != std::string::npos);
    CHECK(std::filesystem::exists(dir / "left.npy"));
    CHECK(std::filesystem::exists(dir / "right.npy"));
    int code = -1;
    const std::string nothing = printed_by_lesson(
        {},
        [&](Lesson& lesson) {
            lesson.step("s", "Nothing", [&] { lesson.show_side_by_side({}); });
            lesson.present();
        },
        &code);
    CHECK(code == 0);
    CHECK(nothing.find("Step 1. Nothing") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a chart prints its title and the text chart, and draws the same series with --svg") {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("test_chart_{}", ::getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::vector<Series> series{{"loss", {0, 1, 2, 3}, {8, 4, 2, 1}, "x"}};
    const std::string text = printed_by_lesson({"--svg", dir.string()}, [&](Lesson& lesson) {
        lesson.step("c", "Chart", [&] {
            ChartOptions options;
            options.width = 8, options.height = 4;
            lesson.chart("loss", "Loss against step", {"step", false}, {"loss", true}, series, options);
        });
        lesson.present();
    });
    CHECK(text.find("Loss against step (log scale)\n") != std::string::npos);
    CHECK(text.find("x") != std::string::npos);  // the series' own mark
    std::ifstream drawn(dir / "loss.svg");
    const std::string svg((std::istreambuf_iterator<char>(drawn)), std::istreambuf_iterator<char>());
    CHECK(svg == line_plot_svg("Loss against step", {"step", false}, {"loss", true}, series));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a listed matrix is shown by itself, with its name, formula and labels, and dumped even when not shown") {
    const Matrix shown = {{1.0f, 2.0f}}, kept = {{3.0f}};
    const MatrixList list = {{"shown", shown, "a · b", "rows", "cols"}, {"kept", kept, "c"}};
    const std::string dir = std::filesystem::temp_directory_path() / fmt::format("listed_{}", getpid());
    std::filesystem::remove_all(dir);
    const std::string text = printed_by_lesson({"--dump", dir}, [&](Lesson& lesson) {
        lesson.labels("rows", {"r"});
        lesson.labels("cols", {"a", "b"});
        lesson.list(list);
        lesson.step("one", "First", [&] { lesson.show(shown, Style().decimals(1)); });
        lesson.present();
    });
    CHECK(text.find("shown = a · b   (1 × 2)\n     a    b\nr  1.0  2.0\n") != std::string::npos);
    CHECK(std::filesystem::exists(dir + "/shown.npy"));
    CHECK(std::filesystem::exists(dir + "/kept.npy"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a matrix not in the list, a name or a shown matrix listed twice or labels of the wrong count are the chapter's mistake") {
    const Matrix m = {{1.0f, 2.0f}};
    auto fails = [&](const std::function<void(Lesson&)>& body) {
        int code = 0;
        printed_by_lesson({}, body, &code);
        return code == 2;
    };
    CHECK(fails([&](Lesson& lesson) { lesson.list({{"m", m, ""}, {"m", m, ""}}); }));
    const Matrix copy = m;  // the same numbers, not the listed matrix
    CHECK(fails([&](Lesson& lesson) {
        lesson.list({{"m", m, ""}});
        lesson.step("one", "First", [&] { lesson.show(copy); });
        lesson.present();
    }));
    CHECK(fails([&](Lesson& lesson) {  // which name would it print?
        lesson.list({{"m", m, ""}, {"also_m", m, ""}});
        lesson.step("one", "First", [&] { lesson.show(m); });
        lesson.present();
    }));
    CHECK(fails([&](Lesson& lesson) {
        lesson.labels("tokens", {"only one"});
        lesson.list({{"m", m, "", "", "tokens"}});
        lesson.present();
    }));
}

// A flag the program does not know, answered with the one the learner probably meant.
namespace {

// A chapter's flags, for the guesses of a mistyped one.
struct Flags {
    CLI::App app{"a chapter"};
    std::size_t heads = 2, head_dim = 4, d_model = 8;
    bool no_color = false;
    Flags() {
        app.add_option("--heads", heads);
        app.add_option("--head-dim", head_dim);
        app.add_option("--d-model", d_model);
        app.add_flag("--no-color", no_color);
    }
};

}  // namespace

TEST_CASE("a flag that begins a real one, or is a letter off, is answered with it") {
    Flags f;
    CHECK(did_you_mean(f.app, {"--head", "2"}) == " (did you mean --heads?)");  // nearer than --head-dim
    CHECK(did_you_mean(f.app, {"--head=2"}) == " (did you mean --heads?)");
    CHECK(did_you_mean(f.app, {"--head-di", "2"}) == " (did you mean --head-dim?)");
    CHECK(did_you_mean(f.app, {"--d-modle", "8"}) == " (did you mean --d-model?)");   // two letters swapped
    CHECK(did_you_mean(f.app, {"--heads", "2", "--no-colour"}) == " (did you mean --no-color?)");
    CHECK(did_you_mean(f.app, {"--hea", "2"}) == " (did you mean --heads?)");
}

TEST_CASE("another word, a known flag or a word after -- gets no guess") {
    Flags f;
    CHECK(did_you_mean(f.app, {"--bogus"}).empty());
    CHECK(did_you_mean(f.app, {"--heads", "2", "stray"}).empty());
    CHECK(did_you_mean(f.app, {"--", "--head"}).empty());
    CHECK(did_you_mean(f.app, {"--x"}).empty());
}
