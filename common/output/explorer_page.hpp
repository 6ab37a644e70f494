// The lesson as a web page (--html DIR writes DIR/index.html): the explorer.
//
// The page embeds the run's document (common/output/run_document.hpp: the steps as they
// printed, every listed matrix with its values, labels and declared kind) as JSON, with its
// script and style (the pieces explorer/draw/*.js, in the order explorer/pieces.txt lists
// them, and explorer/draw/explorer.css, read from the source tree, so an edit of them shows at
// the next run)
// and d3 (Debian's node-d3), all inlined, so that the page opens from file:// with no network.
// The script draws the page from the document alone (explorer/draw/draw_lesson.js).
//
// Where the chapter was also built for the browser (the wasm preset: ./tutorial explore), the
// page computes: it inlines that program too (build/wasm/bin/<program>.pack, two lines of
// gzip in base64: the emscripten glue, the WebAssembly), the chapter's flags and the ones this
// run was given, and the pieces explorer/live/*.js, which show the flags as knobs and rerun
// the chapter in a Web Worker at every change.
//
//   page.start("ch07_multi_head");                  // --html given: reads the files it inlines
//   std::string html = page.html("Chapter 07 · Multi-head attention", document_json, live_json);
#pragma once

#include <string>

class ExplorerPage {
public:
    // Reads the files the page inlines (an InputError names one that cannot be read, and the
    // package that holds it), before anything is computed.
    void start(const std::string& program);

    // The page of the run's document; `live` ({"options": …, "arguments": …}) goes with the
    // WebAssembly program, when there is one.
    std::string html(const std::string& title, const std::string& document, const std::string& live) const;
    // Whether the page computes (its chapter was built for the browser).
    bool computes() const { return !pack_.empty(); }

private:
    std::string style_, d3_, scripts_;  // the files the page inlines (the script's pieces as <script>s)
    std::string live_scripts_, live_style_, pack_;  // and those of a page that computes
};
