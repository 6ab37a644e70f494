#include "common/output/output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

#include "common/numbers/input_error.hpp"

namespace {

// Writes all of `bytes` to a new file at `path`; false (with errno set) on any failure.
bool write_file(const std::string& path, const std::string& bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int error = n < 0 ? errno : ENOSPC;
            ::close(fd);
            errno = error;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return ::close(fd) == 0;
}

}  // namespace

void OutputFiles::write_all() const {
    const std::string suffix = ".partial-" + std::to_string(::getpid());
    std::vector<std::string> written;  // temporary names, then final ones: removed on failure
    auto fail = [&](const std::string& path, int error) {
        for (const std::string& p : written) std::remove(p.c_str());
        throw std::runtime_error("cannot write " + path + " (" + std::strerror(error) + "); no file was written");
    };
    for (const auto& [path, bytes] : files_) {
        const std::string temporary = path + suffix;
        written.push_back(temporary);
        if (!write_file(temporary, bytes)) fail(path, errno);
    }
    for (std::size_t i = 0; i < files_.size(); ++i) {
        if (std::rename(written[i].c_str(), files_[i].first.c_str()) != 0) fail(files_[i].first, errno);
        written[i] = files_[i].first;
    }
}

namespace {

// Root may write where access() says yes and the file system still says no
// (/proc, a read-only mount): try a real file in `dir`. `what` begins the complaint.
void require_new_file_in(const std::string& dir, const std::string& what) {
    const std::string probe = dir + "/.write-test-" + std::to_string(::getpid());
    if (!write_file(probe, "x")) {
        const int why = errno;
        std::remove(probe.c_str());
        throw InputError(what + " (" + std::strerror(why) + ")");
    }
    std::remove(probe.c_str());
}

}  // namespace

void require_writable_directory(const std::string& flag, const std::string& dir) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw InputError(flag + " " + dir + ": cannot create the directory (" + error.message() + ")");
    if (!std::filesystem::is_directory(dir)) throw InputError(flag + " " + dir + ": is not a directory");
    require_new_file_in(dir, flag + " " + dir + ": cannot write files there");
}

void require_writable_file(const std::string& flag, const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) throw InputError(flag + " " + path + ": is a directory, not a file");
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string dir = parent.empty() ? "." : parent.string();
    if (!std::filesystem::is_directory(dir, error))
        throw InputError(flag + " " + path + ": there is no directory " + dir + " to write it in");
    require_new_file_in(dir, flag + " " + path + ": cannot write files in " + dir);
}
