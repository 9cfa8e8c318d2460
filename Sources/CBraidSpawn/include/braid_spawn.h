#ifndef BRAID_SPAWN_H
#define BRAID_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (both NULL-terminated) as a child of the calling
/// process, and returns 0 with its pid in `*pid`, or the errno value of what failed (fork, or
/// exec in the child, reported back through a close-on-exec pipe).
///
/// The child starts with an empty signal mask and default signal dispositions (Swift's
/// threads block most signals, and a server started with them blocked ignores SIGTERM).
/// File descriptors 0, 1 and 2 become `stdin_fd`, `stdout_fd` and `stderr_fd` where those
/// are >= 0; the child starts in `directory` when it is not NULL. With `new_process_group`, the child leads a process group of its own, so a
/// terminal's Ctrl-C reaches only its parent, which then stops it in order.
///
/// With `die_with_parent`, the kernel sends the child SIGKILL when the *thread* that called
/// this function exits (Linux's PR_SET_PDEATHSIG), so nothing outlives a harness that is
/// itself killed; callers must therefore call it from a thread that lives as long as the
/// process.
int braid_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
                int stdout_fd, int stderr_fd, int new_process_group, int die_with_parent, pid_t *pid);

#endif
