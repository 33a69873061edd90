# Sources of modeselect/profile/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES profile/probe_profile.cc profile/darshan_text.cc profile/darshan_profile.cc)
list(APPEND BB_MODESELECT_TESTS)
