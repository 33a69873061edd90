# Sources of modeselect/reason/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES)
list(APPEND BB_MODESELECT_TESTS)
