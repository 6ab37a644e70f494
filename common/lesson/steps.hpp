// A lesson's named steps, in the order they are registered: the frame numbers them,
// text refers to one by its name (ref("one-query") → "step 2"), and --step chooses one
// by its name or its number.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

class Steps {
public:
    struct Step {
        std::string name, heading;
        std::function<void()> show;  // prints the step
    };

    // A name is lower-case letters, digits and '-', and names one step only.
    void add(const std::string& name, const std::string& heading, std::function<void()> show);
    // "step N" for the step `name`.
    std::string ref(const std::string& name) const;
    // The index of the step --step names (a name, or a number from 1); size() when
    // `choice` is empty (every step). Throws InputError listing the steps otherwise.
    std::size_t chosen(const std::string& choice) const;

    const std::vector<Step>& all() const { return steps_; }
    std::size_t size() const { return steps_.size(); }
    bool empty() const { return steps_.empty(); }

private:
    std::vector<Step> steps_;
};
