/*
** test_exec_job_participant.c — the commit protocol with a last-resource
** participant (DESIGN.md section 5): test_exec_job.c's harness with its
** file-backed stand-in for Kafka's transactions, whose commit of epoch N
** carries the decision of checkpoint N. A failure is injected at every step
** (before and after the commit, before _metadata), at parallelism 1 and 2;
** a participant that does not report the decision it holds must make the
** check fail, and a fenced incarnation cannot commit.
*/
#define SL_TEST_LAST_RESOURCE 1
#pragma GCC diagnostic ignored "-Wunused-function" /* test_exec_job.c's own tests */
#include "test_exec_job.c"
