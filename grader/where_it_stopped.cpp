// Linked into every exercise program (never into a chapter): where the learner's program
// stopped. When $TUTORIAL_TRACE names a file, each exception thrown and each crash (a
// segmentation fault, an abort from a failed assertion, a division trap) writes there the
// return addresses of the stack at that moment, one hexadecimal number a line. The grader
// (exercises.py) turns them into file:line with addr2line and names the first line in the
// learner's own file. The program is linked without PIE, so the addresses are the file's.
#include <csignal>
#include <cstdlib>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <initializer_list>
#include <unistd.h>

namespace {

int trace_fd = -1;

// Writes the current stack to the trace file, replacing what an earlier throw wrote.
// Only calls that are safe inside a signal handler (backtrace() is, once it has run once).
void write_stack() {
    if (trace_fd < 0) return;
    void* frames[64];
    const int count = backtrace(frames, 64);
    if (ftruncate(trace_fd, 0) != 0 || lseek(trace_fd, 0, SEEK_SET) != 0) return;
    char line[32];
    for (int i = 0; i < count; ++i) {
        auto address = reinterpret_cast<unsigned long>(frames[i]);
        int n = 0;
        char digits[20];
        do {
            digits[n++] = "0123456789abcdef"[address % 16];
            address /= 16;
        } while (address != 0);
        int length = 0;
        line[length++] = '0';
        line[length++] = 'x';
        while (n > 0) line[length++] = digits[--n];
        line[length++] = '\n';
        if (write(trace_fd, line, std::size_t(length)) != length) return;
    }
}

void on_crash(int signal_number) {
    write_stack();
    std::signal(signal_number, SIG_DFL);  // then stop as the signal would have stopped it
    std::raise(signal_number);
}

// Opens the trace file before main() runs, and arms the crash handlers.
struct Armed {
    Armed() {
        const char* path = std::getenv("TUTORIAL_TRACE");
        if (path == nullptr) return;
        trace_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (trace_fd < 0) return;
        void* warm_up[1];
        backtrace(warm_up, 1);  // loads the unwinder now, not inside a signal handler
        for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(s, on_crash);
    }
} armed;

}  // namespace

// Every `throw` of the program passes here first (the C++ runtime's own function, found
// through the dynamic linker): the stack is written, then the exception thrown as usual.
// (The type is void* as the runtime's own header declares it; it is a std::type_info*.)
extern "C" [[noreturn]] void __cxa_throw(void* exception, void* type, void (*destroy)(void*)) {
    write_stack();
    using Throw = void (*)(void*, void*, void (*)(void*));
    static const auto real_throw = reinterpret_cast<Throw>(dlsym(RTLD_NEXT, "__cxa_throw"));
    real_throw(exception, type, destroy);
    std::abort();  // not reached: the real __cxa_throw does not return
}
