// The lesson as a web page (--html DIR writes DIR/index.html): the explorer.
//
// The page embeds the run's document (common/lesson/run_document.hpp: the steps as they
// printed, every listed matrix with its values, labels and declared kind) as JSON, with its
// script and style (explorer/explorer.js and explorer.css, read from the source tree, so an
// edit of them shows at the next run) and d3 (Debian's node-d3), all inlined, so that the page
// opens from file:// with no network. explorer.js draws the page from the document alone.
//
//   page.start();                                   // --html given: reads the files it inlines
//   std::string html = page.html("Chapter 07 · Multi-head attention", document_json);
#pragma once

#include <string>

class ExplorerPage {
public:
    // Reads the files the page inlines (an InputError names one that cannot be read, and the
    // package that holds it), before anything is computed.
    void start();

    // The page of the run's document.
    std::string html(const std::string& title, const std::string& document) const;

private:
    std::string style_, d3_, script_;  // the files the page inlines
};
