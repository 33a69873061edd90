# Sources of modeselect/profile/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES profile/probe_profile.cc)
list(APPEND BB_MODESELECT_TESTS)
