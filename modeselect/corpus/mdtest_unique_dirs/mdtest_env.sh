# Settings of the metadata runs, sourced by job.sh.
FILES_PER_TASK=64
TESTDIR=$BB_MOUNT/mdtest_easy
MDTEST_OPTS="-u -F -L -P"
