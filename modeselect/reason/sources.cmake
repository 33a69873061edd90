# Sources of modeselect/reason/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES reason/rules.cc reason/reasoner.cc reason/prompt.cc reason/llm_reply.cc reason/llm.cc reason/curl_http.cc reason/auto.cc)
list(APPEND BB_MODESELECT_TESTS reason/rules_test.cc reason/reasoner_test.cc reason/prompt_test.cc reason/llm_reply_test.cc reason/llm_test.cc reason/llm_stub_test.cc reason/auto_test.cc)

# libcurl, for the LLM reasoner's HTTP client; only reason/curl_http.cc includes its headers.
find_package(CURL REQUIRED)
list(APPEND BB_MODESELECT_PRIVATE_LIBS CURL::libcurl)
