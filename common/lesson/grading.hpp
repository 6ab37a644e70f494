// The verdict of ./tutorial check: every listed matrix of a learner's run against the
// chapter's own results, saved with --dump in $TUTORIAL_EXPECT. Without that variable
// nothing is graded (a lesson's --help stays the lesson's).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/numbers/matrix.hpp"

class Grading {
public:
    Grading();  // reads $TUTORIAL_EXPECT
    bool grading() const { return !expect_dir_.empty(); }

    // Compares a matrix with the chapter's own of the same name, when the chapter's run
    // kept one; shown again under the same name, the last one counts.
    void compare(const std::string& name, const Matrix& m, const Labels& row_labels, const Labels& col_labels);
    // The matrices the chapter's run kept, in the list's order: each name with its first
    // difference (empty: equal). The run's document records them (common/output/run_document.hpp).
    std::vector<std::pair<std::string, std::string>> verdicts() const;
    // Prints the verdict (✓ all equal, or ✗ and the first difference).
    void report();
    bool any_differ() const { return !differences_.empty(); }
    std::size_t differing() const { return differences_.size(); }
    int compared() const { return compared_; }

private:
    struct Graded {
        std::string name, difference;  // empty: equal, or not kept by the chapter
        bool kept_by_chapter = false;
    };
    std::string expect_dir_;
    std::vector<Graded> graded_;
    std::vector<std::string> differences_;
    int compared_ = 0;
};
