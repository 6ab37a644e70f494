// Keeps printed output and docs honest.
//
//   golden_check run GOLDEN -- PROGRAM ARGS…      the program exits 0 and prints GOLDEN
//   golden_check doc DOC BIN_DIR CHAPTERS_DIR [PAGE…]  every output block of DOC (and of each PAGE,
//                                                 sharing its runs) matches its program
//   golden_check bless-run GOLDEN -- PROGRAM ARGS…  (re)writes GOLDEN from the program
//   golden_check bless-doc DOC BIN_DIR [CHAPTERS_DIR]  (re)writes DOC's output blocks (the
//                                                 goldens read from CHAPTERS_DIR, ./chapters)
//
// An output block in a doc is a marker line, then a fenced text block:
//
//   <!-- output: ch02_softmax --temperature 0.5 -->
//   ```text
//   …what the program prints…
//   ```
//
// An argument of several words is quoted: `--text "The cat sat on the mat."`.
// `exit=N` among the arguments expects exit code N and compares stdout and
// stderr together. `step=NAME` runs the program with `--step NAME` and keeps
// the step (the output from its "Step N." heading on, without the title);
// `step=N` keeps only step N of the whole output (from its "Step N." heading
// to the next step), for chapters whose steps have no names. `rows=A|B` keeps of the output
// only its first table's header and the rows whose first column is A or B (an underscore in a
// name stands for a space). `from=golden` takes the output from the program's golden output
// (chapters/NN_name/golden.txt, which its own test compares with the program) instead of
// running it: another chapter's numbers, shown without training its models again.
// `doc` runs each command once:
// a named step's block that opens with its heading "Step K. …" is step K of the run without
// --step, and the default run that draws the pictures serves the default blocks. `<!-- measured: … -->` marks output with timings: shown, not
// compared. A block with no arguments must also equal GOLDEN_DIR/<program>.txt.
//
// Pictures: a doc that embeds pictures of its chapter, ![…](pictures/<chapter>/<name>.svg),
// keeps in docs/pictures/<chapter>/ exactly the pictures that the default run
// draws (`<chapter> --svg DIR`). `doc` runs the chapter so and compares every
// embedded picture with the fresh one, line by line with the rule below;
// `bless-doc` rewrites the directory. A picture of measurements (timings) is
// embedded on a line that holds `<!-- measured -->`: it must exist, it is not compared.
// `bless-doc` takes a measured default-run block and the pictures from one run,
// so that the numbers in the doc and in its pictures agree.
//
// Numbers in the prose: every number with a decimal point in a doc's text (outside code
// blocks, `inline code` and HTML comments) must be one that the doc's commands print (in an
// output block, or in the whole output of a command the doc runs), as printed (less its last zeros).
// A number that is not meant to be printed (a learning rate given, a quoted result from a
// paper) is listed in its paragraph: <!-- not printed: 0.02 1.5 -->.
//
// Numbers are compared with a tolerance of one unit in the last printed digit
// (BLAS libraries sum in different orders on different processors); integers
// exactly; numbers in scientific notation (the max errors of self-checks) only
// by their form, since they are rounding noise. Everything else exactly, with
// runs of spaces treated as one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Piece {
    bool number;
    std::string text;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits a word into numbers and the text between them.
std::vector<Piece> pieces(const std::string& word) {
    std::vector<Piece> out;
    std::size_t i = 0;
    while (i < word.size()) {
        const bool sign = word[i] == '-' && i + 1 < word.size() && is_digit(word[i + 1]);
        if (is_digit(word[i]) || sign) {
            std::size_t j = i + (sign ? 1 : 0);
            while (j < word.size() && is_digit(word[j])) ++j;
            if (j + 1 < word.size() && word[j] == '.' && is_digit(word[j + 1])) {
                ++j;
                while (j < word.size() && is_digit(word[j])) ++j;
            }
            if (j + 1 < word.size() && (word[j] == 'e' || word[j] == 'E') &&
                (is_digit(word[j + 1]) || ((word[j + 1] == '-' || word[j + 1] == '+') && j + 2 < word.size() &&
                                           is_digit(word[j + 2])))) {
                j += 2;
                while (j < word.size() && is_digit(word[j])) ++j;
            }
            out.push_back({true, word.substr(i, j - i)});
            i = j;
        } else {
            std::size_t j = i;
            while (j < word.size() && !is_digit(word[j]) &&
                   !(word[j] == '-' && j + 1 < word.size() && is_digit(word[j + 1])))
                ++j;
            out.push_back({false, word.substr(i, j - i)});
            i = j;
        }
    }
    return out;
}

std::vector<Piece> line_pieces(const std::string& line) {
    std::vector<Piece> out;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
        auto p = pieces(word);
        out.insert(out.end(), p.begin(), p.end());
        out.push_back({false, " "});
    }
    return out;
}

bool scientific(const std::string& s) { return s.find_first_of("eE") != std::string::npos; }

std::size_t decimals(const std::string& s) {
    const auto dot = s.find('.');
    return dot == std::string::npos ? 0 : s.size() - dot - 1;
}

bool numbers_match(const std::string& a, const std::string& b) {
    if (scientific(a) || scientific(b)) return scientific(a) && scientific(b);
    if (decimals(a) != decimals(b)) return false;
    if (decimals(a) == 0) return a == b;
    const double unit = std::pow(10.0, -static_cast<double>(decimals(a)));
    return std::fabs(std::stod(a) - std::stod(b)) <= unit * 1.001;
}

bool lines_match(const std::string& expected, const std::string& actual) {
    const auto e = line_pieces(expected);
    const auto a = line_pieces(actual);
    if (e.size() != a.size()) return false;
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (e[i].number != a[i].number) return false;
        if (e[i].number ? !numbers_match(e[i].text, a[i].text) : e[i].text != a[i].text) return false;
    }
    return true;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

// Compares; on a difference prints where, and returns false.
bool texts_match(const std::string& expected, const std::string& actual, const std::string& what) {
    const auto e = split_lines(expected);
    const auto a = split_lines(actual);
    for (std::size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
        const std::string el = i < e.size() ? e[i] : "<end of output>";
        const std::string al = i < a.size() ? a[i] : "<end of output>";
        if (i >= e.size() || i >= a.size() || !lines_match(el, al)) {
            std::cerr << what << ": line " << i + 1 << " differs\n  expected: " << el << "\n  actual:   " << al
                      << "\n(if the change is intended: ./tutorial bless)\n";
            return false;
        }
    }
    return true;
}

std::string quote(const std::string& arg) {
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Runs a command, returns its stdout (and stderr when merge_stderr) and exit code. A chapter
// starts as every runner starts it, through tools/launch (its launcher, when it has one).
std::pair<std::string, int> run(const std::vector<std::string>& argv, bool merge_stderr) {
    std::string command = quote(TUTORIAL_LAUNCH) + " ";
    for (const auto& a : argv) command += quote(a) + " ";
    if (merge_stderr) command += "2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return {"", -1};
    std::string output;
    char buffer[4096];
    std::size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
    const int status = pclose(pipe);
    return {output, WIFEXITED(status) ? WEXITSTATUS(status) : 128};
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Block {
    std::string program;
    std::vector<std::string> args;
    int exit_code = 0;
    std::string step;  // empty: the whole output; a number or a step's name
    std::string rows;  // empty: every line; else the table rows to keep (rows=A|B)
    bool from_golden = false;  // from=golden: the program's golden output, not a run
    bool measured = false;
    std::size_t first_line = 0;  // index of the first content line in the doc
    std::size_t end_line = 0;    // index of the closing fence
    std::string content;
};

bool is_number(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_digit(c); });
}

std::vector<Block> find_blocks(const std::vector<std::string>& doc, const std::string& path, bool& ok) {
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const std::string& line = doc[i];
        const bool output = line.rfind("<!-- output:", 0) == 0;
        const bool measured = line.rfind("<!-- measured:", 0) == 0;
        if (!output && !measured) continue;
        Block b;
        b.measured = measured;
        std::istringstream words(line.substr(line.find(':') + 1));
        std::string w;
        words >> b.program;
        while (words >> w && w != "-->") {
            if (w.rfind("exit=", 0) == 0)
                b.exit_code = std::stoi(w.substr(5));
            else if (w.rfind("step=", 0) == 0)
                b.step = w.substr(5);
            else if (w.rfind("rows=", 0) == 0)
                b.rows = w.substr(5);
            else if (w == "from=golden")
                b.from_golden = true;
            else if (w.front() == '"') {
                // "a sentence of several words" is one argument, without its quotes
                std::string arg = w;
                while (arg.size() < 2 || arg.back() != '"') {
                    if (!(words >> w)) break;
                    arg += " " + w;
                }
                b.args.push_back(arg.substr(1, arg.size() - 2));
            } else
                b.args.push_back(w);
        }
        if (b.from_golden && (!is_number(b.step) || !b.args.empty() || b.exit_code != 0)) {
            std::cerr << path << ":" << i + 1 << ": from=golden takes a step number (step=N) and nothing else\n";
            ok = false;
            continue;
        }
        if (i + 1 >= doc.size() || doc[i + 1] != "```text") {
            std::cerr << path << ":" << i + 2 << ": expected ```text after the output marker\n";
            ok = false;
            continue;
        }
        b.first_line = i + 2;
        std::size_t j = b.first_line;
        while (j < doc.size() && doc[j] != "```") b.content += doc[j++] + "\n";
        if (j == doc.size()) {
            std::cerr << path << ":" << i + 1 << ": the output block is not closed\n";
            ok = false;
            continue;
        }
        b.end_line = j;
        blocks.push_back(b);
        i = j;
    }
    return blocks;
}


// What a block shows of the output: all of it; step N of it ("Step N." to the
// line before the next step); or, for a named step (the program ran with
// --step NAME), everything from the first "Step " heading on.
std::string excerpt(const std::string& output, const std::string& step) {
    if (step.empty()) return output;
    const std::string heading = "Step " + step + ". ";
    std::string out;
    bool inside = false;
    for (const auto& line : split_lines(output)) {
        if (line.rfind("Step ", 0) == 0) inside = !is_number(step) || line.rfind(heading, 0) == 0;
        if (inside) out += line + "\n";
    }
    while (out.size() >= 2 && out.substr(out.size() - 2) == "\n\n") out.pop_back();
    return out;
}

// The first table of the text (a header line, a rule of ─ under it, rows up to a blank line;
// not a step's heading, whose rule is alike):
// its header, its rule and the rows whose first column is one of rows' names, "A|B".
std::string table_rows(const std::string& text, const std::string& rows) {
    std::vector<std::string> names;
    std::istringstream list(rows);
    for (std::string name; std::getline(list, name, '|');) {
        std::replace(name.begin(), name.end(), '_', ' ');
        names.push_back(name);
    }
    const auto lines = split_lines(text);
    std::string out;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        if (lines[i + 1].rfind("─", 0) != 0 || lines[i].rfind("Step ", 0) == 0) continue;  // not a step's heading
        out = lines[i] + "\n" + lines[i + 1] + "\n";
        for (std::size_t j = i + 2; j < lines.size() && !lines[j].empty(); ++j)
            for (const std::string& name : names)
                if (lines[j] == name || lines[j].rfind(name + "  ", 0) == 0) out += lines[j] + "\n";
        break;
    }
    return out;
}

// What a block shows: its step of the output, then its rows of the table when it names some.
std::string shown_part(const std::string& output, const std::string& step, const std::string& rows) {
    const std::string part = excerpt(output, step);
    return rows.empty() ? part : table_rows(part, rows);
}

// "K" when the text opens with the heading "Step K. …"; "" otherwise.
std::string heading_number(const std::string& text) {
    if (text.rfind("Step ", 0) != 0) return "";
    const auto dot = text.find(". ", 5);
    const std::string k = dot == std::string::npos ? "" : text.substr(5, dot - 5);
    return is_number(k) ? k : "";
}

std::vector<std::string> program_argv(const std::string& bin_dir, const Block& b) {
    std::vector<std::string> argv{bin_dir + "/" + b.program};
    argv.insert(argv.end(), b.args.begin(), b.args.end());
    if (!b.step.empty() && !is_number(b.step)) {
        argv.push_back("--step");
        argv.push_back(b.step);
    }
    argv.push_back("--no-color");
    return argv;
}

namespace fs = std::filesystem;

// The pictures a doc embeds from pictures/<its chapter>/: name → shown as measured.
struct Pictures {
    std::string chapter;
    fs::path dir;  // docs/pictures/<chapter>
    std::vector<std::pair<std::string, bool>> embedded;
};

Pictures embedded_pictures(const std::string& doc_path, const std::vector<std::string>& doc) {
    Pictures p;
    p.chapter = fs::path(doc_path).stem().string();
    p.dir = fs::path(doc_path).parent_path() / "pictures" / p.chapter;
    const std::string prefix = "](pictures/" + p.chapter + "/";
    for (const auto& line : doc)
        for (auto at = line.find(prefix); at != std::string::npos; at = line.find(prefix, at + 1)) {
            const auto start = at + prefix.size();
            const auto end = line.find(')', start);
            // (A screenshot of the chapter's page, explorer.png, is explorer_browser's to check.)
            if (end != std::string::npos && line.compare(end - 4, 4, ".svg") == 0)
                p.embedded.emplace_back(line.substr(start, end - start), line.find("<!-- measured") != std::string::npos);
        }
    return p;
}

std::set<std::string> svg_files(const fs::path& dir) {
    std::set<std::string> names;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
        if (it->path().extension() == ".svg") names.insert(it->path().filename().string());
    return names;
}

// One default run of the chapter with --svg: the pictures it drew, and what it
// printed (less the closing "Wrote N pictures" line, so it is the default output).
struct Drawing {
    fs::path dir;  // empty when the run failed
    std::string output;
};

Drawing draw_pictures(const std::string& bin_dir, const std::string& chapter) {
    std::string dir = (fs::temp_directory_path() / "golden_check_XXXXXX").string();
    if (!mkdtemp(dir.data())) {
        std::cerr << "cannot make a temporary directory\n";
        return {};
    }
    // stdout only, as the doc's default blocks show it: what a training says on stderr is not the lesson
    auto [output, code] = run({bin_dir + "/" + chapter, "--no-color", "--svg", dir}, false);
    if (code != 0) {
        std::cerr << chapter << " --svg " << dir << ": exit code " << code << ", expected 0\n" << output;
        fs::remove_all(dir);
        return {};
    }
    const auto wrote = output.rfind("\nWrote ");
    if (wrote != std::string::npos) output.erase(wrote);
    return {dir, output};
}

// Compares the pictures of the default run `drawing` (which check_doc made) with the doc's.
bool check_pictures(const std::string& path, const std::vector<std::string>& doc, const Drawing& drawing) {
    const Pictures p = embedded_pictures(path, doc);
    if (p.embedded.empty()) return true;
    const fs::path fresh = drawing.dir;
    if (fresh.empty()) return false;
    bool ok = true;
    const auto drawn = svg_files(fresh), committed = svg_files(p.dir);
    for (const auto& name : drawn)
        if (!committed.count(name)) {
            std::cerr << path << ": " << p.chapter << " draws " << name << ", which is not in " << p.dir.string()
                      << " (./tutorial bless)\n";
            ok = false;
        }
    for (const auto& name : committed)
        if (!drawn.count(name)) {
            std::cerr << (p.dir / name).string() << ": " << p.chapter << " no longer draws it (./tutorial bless)\n";
            ok = false;
        }
    for (const auto& [name, measured] : p.embedded) {
        if (!drawn.count(name)) {
            std::cerr << path << ": embeds pictures/" << p.chapter << "/" << name << ", which " << p.chapter
                      << " does not draw\n";
            ok = false;
        } else if (!measured && committed.count(name)) {
            ok = texts_match(read_file((p.dir / name).string()), read_file((fresh / name).string()),
                             (p.dir / name).string()) && ok;
        }
    }
    return ok;
}

// Rewrites pictures/<chapter>/ with every picture of the default run `drawing`
// (which bless_doc made, so that a measured output block and the measured
// pictures come from the same run).
bool bless_pictures(const std::string& path, const std::vector<std::string>& doc, const Drawing& drawing) {
    const Pictures p = embedded_pictures(path, doc);
    if (p.embedded.empty()) return true;
    const fs::path fresh = drawing.dir;
    if (fresh.empty()) return false;
    fs::create_directories(p.dir);
    const auto drawn = svg_files(fresh);
    for (const auto& name : svg_files(p.dir))
        if (!drawn.count(name)) fs::remove(p.dir / name);
    for (const auto& name : drawn) fs::copy_file(fresh / name, p.dir / name, fs::copy_options::overwrite_existing);
    bool ok = true;
    for (const auto& embedded : p.embedded)
        if (!drawn.count(embedded.first)) {
            std::cerr << path << ": embeds pictures/" << p.chapter << "/" << embedded.first << ", which "
                      << p.chapter << " does not draw\n";
            ok = false;
        }
    return ok;
}

// The numbers with a decimal point that a text prints, by their count of decimals; "-" dropped
// (prose writes "−", or the sign in words).
using Printed = std::map<std::size_t, std::vector<double>>;

void add_printed(Printed& printed, const std::string& text) {
    std::istringstream words(text);
    std::string word;
    while (words >> word)
        for (const Piece& p : pieces(word))
            if (p.number && p.text.find('.') != std::string::npos && !scientific(p.text))
                printed[decimals(p.text)].push_back(std::fabs(std::stod(p.text)));
}

// Printed as written, give or take one unit in the last printed digit; "0.42" is also printed as
// "0.420" (its zeros left off), but not as "0.4213".
bool is_printed(const Printed& printed, const std::string& number) {
    const double value = std::stod(number);
    for (auto it = printed.lower_bound(decimals(number)); it != printed.end(); ++it) {
        const double unit = std::pow(10.0, -static_cast<double>(it->first));
        if (std::any_of(it->second.begin(), it->second.end(), [&](double x) { return std::fabs(x - value) <= unit * 1.001; }))
            return true;
    }
    return false;
}

bool is_letter_or_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A line of prose without its `inline code`, HTML comments and link targets "](…)".
std::string prose_text(std::string line, bool& in_comment) {
    std::string out;
    for (std::size_t i = 0; i < line.size();) {
        if (in_comment) {
            const auto end = line.find("-->", i);
            if (end == std::string::npos) break;
            in_comment = false, i = end + 3;
        } else if (line.compare(i, 4, "<!--") == 0) {
            in_comment = true, i += 4;
        } else if (line[i] == '`') {
            const auto end = line.find('`', i + 1);
            i = end == std::string::npos ? line.size() : end + 1;
            out += ' ';
        } else if (line.compare(i, 2, "](") == 0) {
            const auto end = line.find(')', i);
            i = end == std::string::npos ? line.size() : end + 1;
            out += ' ';
        } else {
            out += line[i++];
        }
    }
    return out;
}

// The numbers with a decimal point in a line of prose: "0.908", "2.438" of "0.908–2.438"; not
// a version (0.24.3), nor a number inside a word (v1.5, W_1.5).
std::vector<std::string> prose_numbers(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!is_digit(text[i]) || (i > 0 && (is_letter_or_digit(text[i - 1]) || text[i - 1] == '.' || text[i - 1] == '_')))
            continue;
        std::size_t j = i;
        while (j < text.size() && is_digit(text[j])) ++j;
        const bool decimal = j + 1 < text.size() && text[j] == '.' && is_digit(text[j + 1]);
        if (decimal)
            for (++j; j < text.size() && is_digit(text[j]);) ++j;
        const bool version = j + 1 < text.size() && text[j] == '.' && is_digit(text[j + 1]);
        const bool exponent = j < text.size() && (text[j] == 'e' || text[j] == 'E');
        if (decimal && !version && !exponent) out.push_back(text.substr(i, j - i));
        i = j;
    }
    return out;
}

// Every prose number of the doc printed by its commands (see the top of this file).
bool check_prose_numbers(const std::string& path, const std::vector<std::string>& doc, const Printed& printed) {
    bool ok = true, in_fence = false, in_comment = false;
    for (std::size_t first = 0; first < doc.size();) {
        // a paragraph: the lines up to a blank one, a fence, or the end
        std::size_t last = first;
        std::string not_printed;
        std::vector<std::pair<std::size_t, std::string>> numbers;
        for (; last < doc.size() && !doc[last].empty(); ++last) {
            const std::string& line = doc[last];
            const bool fence = line.compare(std::min(line.size(), line.find_first_not_of(' ')), 3, "```") == 0;
            if (fence) in_fence = !in_fence;
            if (in_fence || fence) continue;
            const auto marker = line.find("<!-- not printed:");
            if (marker != std::string::npos) not_printed += " " + line.substr(marker + 17, line.find("-->", marker) - marker - 17) + " ";
            for (const std::string& n : prose_numbers(prose_text(line, in_comment))) numbers.emplace_back(last, n);
        }
        for (const auto& [line, n] : numbers)
            if (!is_printed(printed, n) && not_printed.find(" " + n + " ") == std::string::npos) {
                std::cerr << path << ":" << line + 1 << ": the prose says " << n
                          << ", which none of the doc's commands prints (at these decimals); if it is not meant "
                             "to be printed, mark it in its paragraph: <!-- not printed: "
                          << n << " -->\n";
                ok = false;
            }
        first = std::max(last, first) + 1;
    }
    return ok;
}

// The output of each command a doc runs: (argv, stderr merged) → (output, exit code).
using Runs = std::map<std::pair<std::vector<std::string>, bool>, std::pair<std::string, int>>;

// The golden output of a program's default run: chapters/NN_name/golden.txt for chNN_name.
std::string golden_of(const std::string& chapters_dir, const std::string& program) {
    return chapters_dir + "/" + program.substr(2) + "/golden.txt";
}

int check_doc(const std::string& path, const std::string& bin_dir, const std::string& chapters_dir, Runs& runs) {
    bool ok = true;
    const auto doc = split_lines(read_file(path));
    const auto blocks = find_blocks(doc, path, ok);
    if (blocks.empty()) {
        std::cerr << path << ": has no <!-- output: … --> block\n";
        return 1;
    }
    // Blocks often show different steps of one command: each command runs once. A named
    // step whose block opens with its heading "Step K. …" is cut from the run without
    // --step, as step K (the frame prints a step alike either way; a chapter that trains
    // first then trains once per doc, not once per block).
    // The run that draws the pictures is the default run: its output serves the default blocks.
    const Pictures pictures = embedded_pictures(path, doc);
    const Drawing drawing = pictures.embedded.empty() ? Drawing{} : draw_pictures(bin_dir, pictures.chapter);
    if (!drawing.dir.empty()) {
        Block default_run;
        default_run.program = pictures.chapter;
        runs[{program_argv(bin_dir, default_run), false}] = {drawing.output, 0};
    }
    Printed printed;  // what the doc's blocks and commands print, for the numbers of its prose
    add_printed(printed, drawing.output);
    for (const auto& b : blocks) {
        add_printed(printed, b.content);
        if (b.measured) continue;
        const std::string what = path + ":" + std::to_string(b.first_line) + " (" + b.program + ")";
        Block command = b;
        const std::string shown = heading_number(b.content);
        if (!b.step.empty() && !is_number(b.step) && !shown.empty()) command.step = shown;
        const auto key = std::make_pair(program_argv(bin_dir, command), b.exit_code != 0);
        // a golden output is read, not run: it stays out of the runs, which the other blocks share
        const std::pair<std::string, int> golden =
            b.from_golden ? std::pair<std::string, int>{read_file(golden_of(chapters_dir, b.program)), 0}
                          : std::pair<std::string, int>{};
        if (!b.from_golden && !runs.count(key)) runs[key] = run(key.first, key.second);
        const auto& [full_output, code] = b.from_golden ? golden : runs[key];
        add_printed(printed, full_output);
        const std::string output = shown_part(full_output, command.step, b.rows);
        if (code != b.exit_code) {
            std::cerr << what << ": exit code " << code << ", expected " << b.exit_code << "\n";
            ok = false;
            continue;
        }
        ok = texts_match(b.content, output, what) && ok;
        if (b.args.empty() && b.step.empty() && b.exit_code == 0 && b.content != read_file(golden_of(chapters_dir, b.program))) {
            std::cerr << what << ": differs from " << golden_of(chapters_dir, b.program) << "\n";
            ok = false;
        }
    }
    ok = check_pictures(path, doc, drawing) && ok;
    if (!drawing.dir.empty()) fs::remove_all(drawing.dir);
    ok = check_prose_numbers(path, doc, printed) && ok;
    return ok ? 0 : 1;
}

int bless_doc(const std::string& path, const std::string& bin_dir, const std::string& chapters_dir) {
    bool ok = true;
    auto doc = split_lines(read_file(path));
    const auto blocks = find_blocks(doc, path, ok);
    const Pictures pictures = embedded_pictures(path, doc);
    const Drawing drawing = pictures.embedded.empty() ? Drawing{} : draw_pictures(bin_dir, pictures.chapter);
    std::string out;
    std::size_t next = 0;
    for (const auto& b : blocks) {
        for (; next < b.first_line; ++next) out += doc[next] + "\n";
        // A measured default run is the run that drew the pictures: its numbers and theirs agree.
        const bool same_run = b.measured && b.args.empty() && b.exit_code == 0 && !drawing.dir.empty() &&
                              b.program == pictures.chapter;
        const auto [full_output, code] =
            same_run      ? std::pair<std::string, int>{drawing.output, 0}
            : b.from_golden ? std::pair<std::string, int>{read_file(golden_of(chapters_dir, b.program)), 0}
                          : run(program_argv(bin_dir, b), b.exit_code != 0);
        const std::string output = shown_part(full_output, b.step, b.rows);
        if (code != b.exit_code) {
            std::cerr << path << ": " << b.program << " exited " << code << ", expected " << b.exit_code << "\n";
            ok = false;
        }
        out += output;
        if (!output.empty() && output.back() != '\n') out += "\n";
        next = b.end_line;
    }
    for (; next < doc.size(); ++next) out += doc[next] + "\n";
    std::ofstream(path, std::ios::binary) << out;
    ok = bless_pictures(path, doc, drawing) && ok;
    if (!drawing.dir.empty()) fs::remove_all(drawing.dir);
    return ok ? 0 : 1;
}

int usage() {
    std::cerr << "usage: golden_check run|bless-run GOLDEN -- PROGRAM ARGS…\n"
                 "       golden_check doc DOC BIN_DIR CHAPTERS_DIR [PAGE…]\n"
                 "       golden_check bless-doc DOC BIN_DIR [CHAPTERS_DIR]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() >= 4 && (args[0] == "run" || args[0] == "bless-run") && args[2] == "--") {
        const std::vector<std::string> command(args.begin() + 3, args.end());
        const auto [output, code] = run(command, false);
        if (code != 0) {
            std::cerr << command[0] << ": exit code " << code << ", expected 0\n" << output;
            return 1;
        }
        if (args[0] == "bless-run") {
            std::ofstream(args[1], std::ios::binary) << output;
            return 0;
        }
        return texts_match(read_file(args[1]), output, args[1]) ? 0 : 1;
    }
    if (args.size() >= 4 && args[0] == "doc") {
        Runs runs;  // shared: a page beside a chapter's doc reuses the chapter's runs
        int code = check_doc(args[1], args[2], args[3], runs);
        for (std::size_t i = 4; i < args.size(); ++i) code = std::max(code, check_doc(args[i], args[2], args[3], runs));
        return code;
    }
    if ((args.size() == 3 || args.size() == 4) && args[0] == "bless-doc")
        return bless_doc(args[1], args[2], args.size() == 4 ? args[3] : "chapters");
    return usage();
}
