// Chapter 04 · the lesson's inputs: the phonebook it looks people up in (three files of
// data/, read and checked against each other before anything is printed), and the check
// of --temperature.
#pragma once

#include <string>

#include "common/inputs/labelled_csv.hpp"

struct Phonebook {
    LabelledMatrix keys;     // (m × d_k)  how you recognise each person
    LabelledMatrix values;   // (m × d_v)  their phone number
    LabelledMatrix queries;  // (q × d_k)  who we are looking for
};

// data/phonebook_{keys,values,queries}.csv. Throws InputError when the values do not list
// the keys' people in the same order, or the queries do not have the keys' columns.
Phonebook load_phonebook();
