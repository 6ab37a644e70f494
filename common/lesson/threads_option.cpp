#include "common/lesson/threads_option.hpp"

#include "common/lesson/lesson.hpp"
#include "common/machine/cores.hpp"
#include "common/numbers/threads.hpp"

void add_threads_option(Lesson& lesson) {
    static std::size_t asked = 0;  // one lesson a program
    lesson.option("--threads", asked, "threads a training uses, the same numbers at any count; 0: the machine's cores, at most 8",
                  Range{0, 64});
    lesson.after_parse([] { threads::set_count(training_threads(asked)); });
}
