#ifndef EVENTLOG_H
#define EVENTLOG_H
/* One text log for the whole run, appended to by every rank. */
int eventlog_append(const char *path, const char *line);
/* Appends one line per rank in rank order (the ranks take turns). */
int eventlog_ordered(const char *path, const char *line, int rank, int nranks);
#endif
