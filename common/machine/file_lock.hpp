// A lock that one process holds at a time, on a file beside what it guards: two runs that would
// train the same model take turns, and the second reads what the first kept. The system releases
// it when the process ends, however it ends.
//
//   { FileLock lock(folder + ".lock");  … read, or train and write, the folder … }
#pragma once

#include <string>

class FileLock {
public:
    // Waits until the lock is free, then holds it; holds nothing when the file cannot be made
    // (a folder that cannot be written: nothing will be kept there either).
    explicit FileLock(const std::string& path);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};
