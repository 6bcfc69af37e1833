/*
 * tai-reaper FILE ARGS...: the native reaper between tai and one agent
 * (src/io/runners/process-group.ts holds the contract; docs/agents.md, "The
 * reaper"). Linux only.
 *
 * Vocabulary:
 * - agent: FILE, started in its own session (so its own process group,
 *   pgid = its pid) with this process's stdio.
 * - lifeline: fd 3, a pipe from the supervisor that is never written to. Its
 *   end means the supervisor is gone: kill everything and exit. The agent's
 *   pid goes out on it once the agent has exec'd.
 * - descendants: every process whose parent chain leads here. As a child
 *   subreaper we inherit the orphans of the agent's tree, also those that
 *   left its group with setsid, so a walk of /proc finds them all.
 *
 * Signals are blocked and read from a signalfd in one poll loop with the
 * lifeline: no handler runs asynchronously, so nothing here has to be
 * async-signal-safe. SIGINT, SIGTERM and SIGHUP go to the agent's group (the
 * soft stop: descendants that left the group are spared until the agent
 * exits); SIGUSR2 kills every descendant (the hard stop).
 *
 * tai-reaper --host FILE ARGS...: the same reaper on a remote host, started
 * by the POSIX sh reaper as its agent (docs/remote.md, "The reaper on a
 * host"), which stops it by signals to its group and by KILL to every
 * process marked TAI_REMOTE_RUN. So this process (the stub) only forwards
 * signals and passes on the status, and a child of it (the keeper), in a
 * group of its own and with its mark hidden, is the subreaper: its lifeline
 * is a pipe from the stub, so the stub's KILL makes it kill and sweep.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A sweep gives up after this many rounds: a process stuck in the kernel
 * (D state) must not keep the reaper, and so the supervisor, waiting. */
#define SWEEP_ROUNDS 20
/* How long a round waits for the killed to die before it looks again. */
#define SWEEP_WAIT_NS 100000000L

static pid_t agent;
static int agent_status;
static int agent_done;

/* Every waitpid goes through here, so the agent's status is never lost to a sweep. */
static void reaped(pid_t pid, int status) {
    if (pid == agent) {
        agent_status = status;
        agent_done = 1;
    }
}

static void reap_ready(void) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) reaped(pid, status);
}

/* The parent pid from /proc/PID/stat; the name field may hold spaces and ')'. */
static pid_t parent_of(pid_t pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *end = strrchr(buf, ')');
    int ppid;
    if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1) return -1;
    return ppid;
}

/* SIGKILLs every descendant found in /proc now. */
static void kill_descendants(void) {
    struct proc { pid_t pid, ppid; } *procs = NULL;
    size_t n = 0, cap = 0;
    DIR *dir = opendir("/proc");
    if (!dir) {
        kill(-agent, SIGKILL); /* without the walk, the agent's group is still reachable */
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        pid_t pid = atoi(e->d_name), ppid = parent_of(pid);
        if (ppid < 0) continue; /* it left while we read */
        if (n == cap) {
            struct proc *more = realloc(procs, (cap = cap ? 2 * cap : 512) * sizeof *procs);
            if (!more) break;
            procs = more;
        }
        procs[n].pid = pid;
        procs[n++].ppid = ppid;
    }
    closedir(dir);
    /* Mark a descendant by turning its ppid into ours, until nothing changes:
     * trees are shallow, so a few passes over the table do. */
    pid_t self = getpid();
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (procs[i].ppid == self) continue;
            for (size_t j = 0; j < n; j++) {
                if (procs[j].ppid == self && procs[j].pid == procs[i].ppid) {
                    procs[i].ppid = self;
                    changed = 1;
                    break;
                }
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (procs[i].ppid == self && procs[i].pid != self) kill(procs[i].pid, SIGKILL);
    }
    free(procs);
}

/*
 * Kills and reaps every descendant. A process can fork between the walk and
 * the kill; its child is then reparented here and found by the next round,
 * which is why the wait is bounded and the walk repeated.
 */
static void sweep(void) {
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (int round = 0; round < SWEEP_ROUNDS; round++) {
        kill_descendants();
        for (;;) {
            int status;
            pid_t pid = waitpid(-1, &status, WNOHANG);
            if (pid > 0) {
                reaped(pid, status);
                continue;
            }
            if (pid < 0 && errno == ECHILD) return; /* no child left, so no descendant */
            struct timespec wait = {0, SWEEP_WAIT_NS};
            if (sigtimedwait(&chld, NULL, &wait) < 0 && errno == EAGAIN) break;
        }
    }
}

/* Ends this process the way the agent ended, so the supervisor sees its status. */
static void pass_on(int status) {
    if (WIFEXITED(status)) exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    /* Dying by SIGSEGV and the like must not leave a core of the reaper. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    exit(128 + sig); /* a signal whose default is to be ignored */
}

/* Forks and execs the agent in a new session; exits 127 with a message if it cannot. */
static pid_t start(char **argv, const sigset_t *mask) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        fprintf(stderr, "tai: cannot start %s: %s\n", argv[0], strerror(errno));
        exit(127);
    }
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, mask, NULL);
        signal(SIGPIPE, SIG_DFL);
        setsid();
        execvp(argv[0], argv);
        int err = errno;
        /* The report pipe closes on a successful exec; an errno on it means failure. */
        ssize_t ignored = write(report[1], &err, sizeof err);
        (void)ignored;
        _exit(127);
    }
    int err = pid < 0 ? errno : 0;
    close(report[1]);
    if (pid > 0) {
        ssize_t n;
        while ((n = read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {}
        if (n != sizeof err) err = 0;
    }
    close(report[0]);
    if (err) {
        fprintf(stderr, "tai: cannot start %s: %s\n", argv[0], strerror(err));
        if (pid > 0) waitpid(pid, NULL, 0);
        exit(127);
    }
    return pid;
}

/*
 * The reaper's loop around the agent `argv`: `lifeline` is the fd whose end
 * means the supervisor is gone (-1: none), `orig` the signal mask the agent
 * gets, `tell` whether the agent's pid goes out on the lifeline.
 */
static int reap(char **argv, int lifeline, const sigset_t *orig, int tell) {
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) perror("tai-reaper: PR_SET_CHILD_SUBREAPER");
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGUSR2);
    sigaddset(&handled, SIGCHLD);
    sigprocmask(SIG_BLOCK, &handled, NULL);
    int sfd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        perror("tai-reaper: signalfd");
        return 127;
    }
    /* A write on a lifeline whose supervisor is gone must fail, not kill us. */
    signal(SIGPIPE, SIG_IGN);

    agent = start(argv, orig);
    if (tell && lifeline >= 0) dprintf(lifeline, "%d\n", (int)agent);

    for (;;) {
        struct pollfd fds[2] = {{sfd, POLLIN, 0}, {lifeline, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0 && errno != EINTR) {
            perror("tai-reaper: poll");
            kill(-agent, SIGKILL);
            sweep();
            return 1;
        }
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            switch (si.ssi_signo) {
            case SIGINT:
            case SIGTERM:
            case SIGHUP:
                kill(-agent, (int)si.ssi_signo);
                break;
            case SIGUSR2:
                kill(-agent, SIGKILL);
                sweep();
                break;
            default: /* SIGCHLD: reaped below */
                break;
            }
        }
        if (fds[1].revents) {
            char buf[64];
            ssize_t n = read(lifeline, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || !(fds[1].revents & POLLIN)) {
                lifeline = -1; /* poll skips a negative fd */
                kill(-agent, SIGKILL);
                sweep();
            }
        }
        reap_ready();
        if (agent_done) {
            /* What the agent left behind, in its group or not, goes with it. */
            kill(-agent, SIGKILL);
            sweep();
            pass_on(agent_status);
        }
    }
}

/* The mark the host's sh reaper sweeps by (in /proc/PID/environ); the keeper must not carry it. */
#define MARK "TAI_REMOTE_RUN"

/*
 * Hides the mark from this process's /proc/PID/environ (which shows the
 * environment block as exec left it, so the bytes themselves are changed)
 * and puts it back in `environ`, so the agent started from here has it.
 */
static void hide_mark(void) {
    char *value = getenv(MARK);
    if (!value) return;
    char *copy = strdup(value);
    value[-(ptrdiff_t)sizeof MARK] = '_'; /* "TAI_REMOTE_RUN=" becomes "_AI_REMOTE_RUN=" */
    unsetenv("_AI_REMOTE_RUN");
    if (copy) setenv(MARK, copy, 1);
    free(copy);
}

/* The signals the reaper takes through sigwaitinfo, blocked; `orig` gets the mask the agent is started with. */
static void block_handled(sigset_t *set, sigset_t *orig) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGUSR2);
    sigaddset(set, SIGCHLD);
    sigprocmask(SIG_BLOCK, set, orig);
}

/* --host: the stub forwards signals to the keeper and ends as it ends; the keeper reaps the agent. */
static int host(char **argv) {
    sigset_t fwd, orig;
    block_handled(&fwd, &orig);
    int life[2];
    if (pipe2(life, O_CLOEXEC) < 0) {
        perror("tai-reaper: pipe");
        return 127;
    }
    pid_t keeper = fork();
    if (keeper < 0) {
        perror("tai-reaper: fork");
        return 127;
    }
    if (keeper == 0) {
        close(life[1]);
        /* Out of the stub's group: the sh reaper's group signals reach the stub, which forwards them. */
        setpgid(0, 0);
        hide_mark();
        return reap(argv, life[0], &orig, 0);
    }
    close(life[0]);
    setpgid(keeper, keeper); /* also here: whichever of the two runs first */
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&fwd, &si);
        if (sig == SIGCHLD) {
            int status;
            if (waitpid(keeper, &status, WNOHANG) == keeper) pass_on(status);
        } else if (sig > 0) {
            kill(keeper, sig);
        }
    }
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "--host") == 0) return host(argv + 2);
    if (argc < 2) {
        fprintf(stderr, "usage: tai-reaper FILE [ARGS...] (fd 3: the lifeline)\n       tai-reaper --host FILE [ARGS...] (under the host's sh reaper)\n");
        return 64;
    }
    sigset_t handled, orig;
    block_handled(&handled, &orig);
    /* Run by hand without fd 3, there is simply no lifeline. */
    int lifeline = fcntl(3, F_SETFD, FD_CLOEXEC) == 0 ? 3 : -1;
    return reap(argv + 1, lifeline, &orig, 1);
}
