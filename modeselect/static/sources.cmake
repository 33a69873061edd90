# Sources of modeselect/static/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES
  static/text.cc static/finding_set.cc static/files.cc
  static/tokenize_c.cc static/tokenize_fortran.cc static/tokenize_python.cc
  static/model_common.cc static/const_eval.cc static/model_c.cc static/model_fortran.cc static/model_python.cc
  static/scan_ops.cc static/scan_values.cc static/scan_walk.cc static/scan_io.cc static/scan_meta.cc static/scan_paths.cc
  static/scan_sources.cc
  static/shell_lex.cc static/shell_parse.cc static/launchers.cc static/placement.cc static/rank_paths.cc
  static/ior_mdtest.cc static/fio.cc static/makefile.cc
  static/job_script.cc static/job_expand.cc static/job_commands.cc static/job_tasks.cc static/job_steps.cc
  static/extract.cc)
list(APPEND BB_MODESELECT_TESTS
  static/tokenize_test.cc static/sources_c_test.cc static/sources_fortran_python_test.cc static/scan_paths_test.cc
  static/shell_test.cc static/launchers_test.cc static/benchmarks_test.cc static/makefile_test.cc
  static/job_script_test.cc static/job_tasks_test.cc static/job_steps_test.cc static/rank_paths_test.cc
  static/placement_test.cc static/extract_test.cc static/fuzz_test.cc)
