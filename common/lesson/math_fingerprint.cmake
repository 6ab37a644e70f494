# cmake -DLIB=libtutorial_math.a -DOUT=math_fingerprint.cpp -P math_fingerprint.cmake
# Writes OUT: the SHA-256 of the math library as a constant. Trained models are kept under it
# (common/lesson/training_memory.hpp): any change to the mathematics trains anew. OUT is
# rewritten only when the hash changes, so an unchanged library recompiles nothing.
file(SHA256 "${LIB}" hash)
set(text "// Made by common/lesson/math_fingerprint.cmake: the SHA-256 of the math library.\n")
string(APPEND text "extern const char* const math_fingerprint;\n")
string(APPEND text "const char* const math_fingerprint = \"${hash}\";\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
