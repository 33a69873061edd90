# Sources of modeselect/static/ (paths relative to modeselect/).
list(APPEND BB_MODESELECT_SOURCES
  static/text.cc static/finding_set.cc static/files.cc
  static/lang/tokenize_c.cc static/lang/tokenize_fortran.cc static/lang/tokenize_python.cc
  static/lang/model_common.cc static/lang/const_eval.cc static/lang/model_c.cc static/lang/model_fortran.cc static/lang/model_python.cc
  static/scan/scan_ops.cc static/scan/scan_values.cc static/scan/scan_walk.cc static/scan/scan_io.cc static/scan/scan_meta.cc static/scan/scan_paths.cc
  static/scan/scan_sources.cc
  static/shell/shell_lex.cc static/shell/shell_parse.cc static/cmdline/launchers.cc static/cmdline/placement.cc static/job/rank_paths.cc
  static/cmdline/ior_mdtest.cc static/cmdline/fio.cc static/cmdline/makefile.cc
  static/job/job_script.cc static/job/job_expand.cc static/job/job_commands.cc static/job/job_tasks.cc static/job/job_steps.cc
  static/extract.cc)
list(APPEND BB_MODESELECT_TESTS
  static/lang/tokenize_test.cc static/lang/sources_c_test.cc static/lang/sources_fortran_python_test.cc static/scan/scan_paths_test.cc
  static/shell/shell_test.cc static/cmdline/launchers_test.cc static/cmdline/benchmarks_test.cc static/cmdline/makefile_test.cc
  static/job/job_script_test.cc static/job/job_tasks_test.cc static/job/job_steps_test.cc static/job/rank_paths_test.cc
  static/cmdline/placement_test.cc static/extract_test.cc static/fuzz_test.cc)
