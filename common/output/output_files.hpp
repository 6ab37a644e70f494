// The files a run writes (--dump, --svg) are all written, or none is.
//
//   OutputFiles files;
//   files.add("out/weights.npy", bytes);
//   files.add("pics/weights.svg", svg);
//   files.write_all();   // throws, leaving nothing behind, if any file cannot be written
//
// Each file goes to a temporary name beside its final one; every write, flush
// and close is checked (a full disk, a file size limit); only when all of them
// are complete are they renamed into place. On any failure, whatever this run
// wrote is removed, and the error names the file and the reason.
#pragma once

#include <string>
#include <utility>
#include <vector>

class OutputFiles {
public:
    void add(std::string path, std::string bytes) { files_.emplace_back(std::move(path), std::move(bytes)); }
    void write_all() const;

private:
    std::vector<std::pair<std::string, std::string>> files_;  // path, contents
};

// Checks now, before anything is computed or printed, that files can be created
// in `dir` (making it if needed): a directory that cannot be written is refused
// up front with one line naming `flag`.
void require_writable_directory(const std::string& flag, const std::string& dir);

// Likewise for a file to be written at the end (--report FILE): its directory must exist and
// take new files, and the path must not be a directory.
void require_writable_file(const std::string& flag, const std::string& path);
