# Sources of modeselect/profile/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES
  profile/probe_profile.cc profile/darshan_text.cc profile/darshan_profile.cc
  profile/signals.cc profile/sharing.cc profile/summary.cc profile/json_fields.cc profile/summary_json.cc
  profile/probe_document.cc)
list(APPEND BB_MODESELECT_TESTS profile/signals_test.cc profile/probe_profile_test.cc profile/darshan_test.cc profile/fuzz_test.cc
  profile/summary_test.cc)
