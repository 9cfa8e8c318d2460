#define _GNU_SOURCE
#include "braid_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

// Only async-signal-safe calls between fork and exec: the parent has other threads, whose
// locks the child inherits in whatever state they were.
static void fail_in_child(int report_fd) {
    int error = errno;
    ssize_t ignored = write(report_fd, &error, sizeof error);
    (void)ignored;
    _exit(127);
}

int braid_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
                int stdout_fd, int stderr_fd, int new_process_group, int die_with_parent, pid_t *pid) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    pid_t parent = getpid();

    // Block every signal across fork, so no handler of the parent runs in the child before
    // the dispositions are reset below.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);

    pid_t child = fork();
    if (child == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int signal_number = 1; signal_number < NSIG; signal_number++) {
            if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
            sigaction(signal_number, &dfl, NULL);  // fails harmlessly for the realtime ones glibc reserves
        }
        if (die_with_parent) {
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_in_child(report[1]);
            // The parent may have died before prctl took effect.
            if (getppid() != parent) _exit(127);
        }
        if (new_process_group && setpgid(0, 0) != 0) fail_in_child(report[1]);
        if (directory != NULL && chdir(directory) != 0) fail_in_child(report[1]);
        if (stdin_fd >= 0 && dup2(stdin_fd, 0) < 0) fail_in_child(report[1]);
        if (stdout_fd >= 0 && dup2(stdout_fd, 1) < 0) fail_in_child(report[1]);
        if (stderr_fd >= 0 && dup2(stderr_fd, 2) < 0) fail_in_child(report[1]);
        // Nothing but 0-2 crosses exec: a descriptor the parent opened without O_CLOEXEC (a
        // socket a test holds, one a server accepted) would otherwise stay open in the child,
        // and the connection with it, after the parent closes it.
        if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
            struct rlimit limit;
            int top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? (int)limit.rlim_cur : 65536;
            for (int fd = 3; fd < top; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
        fail_in_child(report[1]);
    }
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        return fork_error;
    }
    int child_error = 0;
    ssize_t got;
    do {
        got = read(report[0], &child_error, sizeof child_error);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof child_error) {
        waitpid(child, NULL, 0);
        return child_error;
    }
    *pid = child;
    return 0;
}
