"""Writes the example at the top of common/lesson/lesson.hpp as a C++ file, so
that the build compiles it and a test runs it: the example cannot drift from
the frame it documents.

    lesson_example.py LESSON_HPP OUTPUT_CPP
"""
import sys

header, output = sys.argv[1], sys.argv[2]
lines = open(header, encoding="utf-8").read().split("\n")
start = next(i for i, line in enumerate(lines) if line.startswith("//   #include"))
end = next(i for i in range(start, len(lines)) if lines[i] == "//   }")
code = "\n".join(line[len("//   "):] if line.startswith("//   ") else "" for line in lines[start:end + 1])
text = "// Generated from common/lesson/lesson.hpp by tests/lesson_example.py.\n" + code + "\n"
try:
    if open(output, encoding="utf-8").read() == text:
        sys.exit(0)  # unchanged: no rebuild
except OSError:
    pass
open(output, "w", encoding="utf-8").write(text)
