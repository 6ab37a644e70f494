// A part of a chapter's computation that the lesson does only when something needs it:
// the first step that reads it, or the dumps, the page and the grading, which hold every
// listed matrix. So --list-steps computes nothing, and --step NAME only what that step
// reads (--report then holds that step alone): a step that trains nothing does not wait for
// a training.
//
//   Part<SideBySide>& trained = lesson.part<SideBySide>([&] { return train_side_by_side(s); });
//   lesson.step("trained", "Trained side by side", [&] { show_trained(lesson, trained()); });
//
// Once computed, the value's matrices() join the chapter's list (the frame does it), and a
// step shows them by name like any other; a name the list lacks computes the parts first.
#pragma once

#include <functional>
#include <optional>
#include <utility>

// What the frame holds of a part, whatever its type.
class LessonPart {
public:
    virtual ~LessonPart() = default;
    // Computes the value unless it has been computed; the second call does nothing.
    virtual void compute() = 0;
};

template <class T>
class Part final : public LessonPart {
public:
    // `make` computes the value; `computed` hears it once, where it stays (the frame lists its matrices).
    Part(std::function<T()> make, std::function<void(const T&)> computed)
        : make_(std::move(make)), computed_(std::move(computed)) {}

    // The value, computed the first time it is asked for.
    const T& operator()() {
        compute();
        return *value_;
    }
    void compute() override {
        if (value_) return;
        value_.emplace(make_());
        computed_(*value_);
    }

private:
    std::function<T()> make_;
    std::function<void(const T&)> computed_;
    std::optional<T> value_;
};
