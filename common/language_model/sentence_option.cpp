#include "common/language_model/sentence_option.hpp"

#include <fmt/format.h>

#include "common/language_model/model_sentence.hpp"
#include "common/language_model/page_model.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

const SequenceSource& add_sentence_options(Lesson& lesson, const std::string& default_sequence) {
    static SequenceSource source;  // the flags' strings live as long as the program
    const std::string& input = lesson.add_input_option(default_sequence);
    lesson.option("--text", source.text,
                  "your sentence instead: X's rows are its token embeddings in chapter 22's trained GPT "
                  "(trained first if missing, about a minute)",
                  Text::text);
    lesson.after_parse([&lesson, &input] {
        if (!source.text.empty() && !input.empty())
            throw InputError("--text: not with --input (the sequence is one or the other)");
        source.input = input;
        source.listing_only = lesson.listing_steps();
    });
    carry_trained_model(lesson);
    lesson.sentence_through_model();
    return source;
}

Sequence load_sequence(const SequenceSource& source, const std::string& default_sentence,
                       std::uint64_t square_matrices) {
    if (!source.text.empty()) return model_sentence_sequence(source.text, source.listing_only);
    return load_sequence(source.input, default_sentence, square_matrices);
}

Sequence random_or_input_sequence(const SequenceSource& source, const std::string& default_sentence,
                                  std::size_t d_model, bool d_model_given, Random& random,
                                  std::uint64_t square_matrices) {
    if (source.text.empty())
        return random_or_input_sequence(source.input, default_sentence, d_model, d_model_given, random,
                                        square_matrices);
    check_model_width(d_model, d_model_given);
    return model_sentence_sequence(source.text, source.listing_only);
}

void check_model_width(std::size_t d_model, bool d_model_given) {
    const std::size_t width = default_model_config().d_model;  // known without reading the model
    if (d_model_given && d_model != width)
        throw InputError(
            fmt::format("--d-model {}: with --text, d_model is the trained model's width ({})", d_model, width));
}
