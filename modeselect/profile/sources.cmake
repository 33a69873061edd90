# Sources of modeselect/profile/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES)
list(APPEND BB_MODESELECT_TESTS)
