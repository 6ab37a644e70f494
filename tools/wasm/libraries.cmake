# The libraries of the WebAssembly build (the wasm preset, compiled by Debian's emscripten):
# the same header-only xtensor, xtl, xsimd, fmt and CLI11 as the native build, seen through a
# folder of links to them alone (-I/usr/include would bring the machine's own C library in).
# There is no BLAS there: the products are the project's fixed-order loops
# (common/numbers/matmul.cpp). utf8proc is tools/wasm/utf8proc.h, its widths read from the
# machine's utf8proc when the build is configured (tools/wasm/width_table.cpp).
set(WASM_INCLUDE ${CMAKE_BINARY_DIR}/include)
file(MAKE_DIRECTORY ${WASM_INCLUDE})
foreach(library xtensor xtl xsimd fmt CLI)
  if(NOT EXISTS /usr/include/${library})
    message(FATAL_ERROR "/usr/include/${library} is missing: ./tutorial explore installs its Debian package")
  endif()
  file(CREATE_LINK /usr/include/${library} ${WASM_INCLUDE}/${library} SYMBOLIC)
endforeach()
file(CREATE_LINK ${CMAKE_SOURCE_DIR}/tools/wasm/utf8proc.h ${WASM_INCLUDE}/utf8proc.h SYMBOLIC)

# The display width and the Unicode category of every code point, as the machine's utf8proc says
# (a program of the host).
set(WIDTHS ${CMAKE_BINARY_DIR}/include/utf8proc_widths.inc)
set(CATEGORIES ${CMAKE_BINARY_DIR}/include/utf8proc_categories.inc)
if(NOT EXISTS ${WIDTHS} OR NOT EXISTS ${CATEGORIES})
  execute_process(COMMAND g++ -O1 -o ${CMAKE_BINARY_DIR}/width_table ${CMAKE_SOURCE_DIR}/tools/wasm/width_table.cpp -lutf8proc
                  RESULT_VARIABLE built)
  execute_process(COMMAND ${CMAKE_BINARY_DIR}/width_table OUTPUT_FILE ${WIDTHS} RESULT_VARIABLE written)
  execute_process(COMMAND ${CMAKE_BINARY_DIR}/width_table categories OUTPUT_FILE ${CATEGORIES}
                  RESULT_VARIABLE categorised)
  if(NOT built EQUAL 0 OR NOT written EQUAL 0 OR NOT categorised EQUAL 0)
    file(REMOVE ${WIDTHS} ${CATEGORIES})
    message(FATAL_ERROR "could not write the tables of character widths and categories from utf8proc (libutf8proc-dev)")
  endif()
endif()

foreach(library xtl xsimd xtensor xtensor-blas)
  add_library(${library} INTERFACE)
  target_include_directories(${library} SYSTEM INTERFACE ${WASM_INCLUDE})
endforeach()
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt SYSTEM INTERFACE ${WASM_INCLUDE})
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 SYSTEM INTERFACE ${WASM_INCLUDE})
set(BLAS_LIBRARIES "")
set(LAPACK_LIBRARIES "")
set(UTF8PROC_INCLUDE_DIR ${WASM_INCLUDE})
set(UTF8PROC_LIBRARY "")

# Every file is compiled with C++ exceptions (emscripten leaves them out unless asked): a
# refusal (InputError) must reach the frame, which prints its line and exits with 2.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
# WebAssembly's 128-bit vectors (every current browser has them): the products' eight floats
# (common/numbers/eight_floats.hpp) as two of them, the same sums in the same order. Chapter 22's
# run with a sentence took 3.2 s under node without them, 1.3 s with.
add_compile_options(-msimd128)
add_link_options(-msimd128)

# How each chapter program is linked: a factory (createChapter) that the page's worker calls
# once a run, with the chapter's arguments (callMain); its files in memory (FS), data/ inside.
# -O1 at the link: binaryen's -O3 passes took 9 s a chapter for a 10 % smaller file (0.9 s at -O1).
# TOTAL_STACK: 5 MiB, emscripten 3.1.6's default (Debian 12). From 3.1.27 on the default is 64 KiB
# (Debian 13's 3.1.69), which the lessons overflow: a WebAssembly stack has no guard page, so the
# overflow wrote over the heap and the next malloc failed ("memory access out of bounds").
set(WASM_PROGRAM_OPTIONS -O1 -sTOTAL_STACK=5242880
  -sMODULARIZE=1 -sEXPORT_NAME=createChapter -sINVOKE_RUN=0 -sEXIT_RUNTIME=1
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sFORCE_FILESYSTEM=1 -sENVIRONMENT=worker,node
  "-sEXPORTED_RUNTIME_METHODS=['callMain','FS','ENV']"
  --embed-file ${CMAKE_SOURCE_DIR}/data@${CMAKE_SOURCE_DIR}/data)
