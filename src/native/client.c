/*
 * tai-client (--fd N | --link PATH) [--read-only] [--report PATH | --report-fd N] [--then PROGRAM ARG...]: the thin
 * client of a cockpit in C, the same relay as src/io/link/link-client.ts
 * without Node's streams and event loop between a key and its echo
 * (docs/performance.md, "Optimisations that stay"). src/io/link/native-client.ts runs it and holds the contract;
 * docs/protocol.md, "The client link", the frames.
 *
 * Vocabulary:
 * - link: the connected socket to the cockpit's server (fd N, inherited from
 *   tai, or connected here to PATH). Every frame is a type byte, a 4-byte
 *   big-endian length and the payload.
 * - report: where the end of the link is told, for tai to print (through its
 *   one sanitizer) and exit with: one line naming how it ended ("frame x",
 *   "frame d", "closed", "broke", "signal SIGTERM"), then the farewell's JSON
 *   or the error. This program prints nothing itself.
 * - then: the program the client becomes once it has told the report (execv),
 *   when it was exec'd in tai's place (src/bin/tai) and no tai waits to print the
 *   farewell: `tai __farewell` reads the report, prints and exits with its code.
 * - finish: the one way out. The terminal is restored (LEAVE, the cooked
 *   mode saved at the start) whatever ended the link.
 * - direct: when its input and output are one terminal, the hello names it
 *   (the path and the device's numbers) and the server may take it: write
 *   the output and read the keys there itself (src/io/link/direct-tty.ts).
 *   The client reads its terminal only once the attached frame (a) says the
 *   server does not (or output comes first: an older server). The client writes to the terminal only after
 *   the server's farewell, sent once the server is done with it; told to
 *   stop by SIGTERM, SIGINT or SIGHUP it asks to leave (a q frame) and waits for that
 *   farewell, at most LEAVE_WAIT_MS, before it finishes.
 *
 * One poll() loop; signals come through a self-pipe. Output is written to
 * the terminal straight from the read buffer and input read straight into
 * the frame that carries it: nothing is allocated per byte, and only the
 * farewell's JSON is buffered whole. The terminal's file descriptions are
 * shared with the shell, so their flags are never changed: a write that
 * would block just blocks (a slow terminal slows the link, as in Node), and
 * EAGAIN from a description someone else made non-blocking waits in poll.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define HEADER 5
#define LINK_VERSION 1
/* The largest chunk of input one frame carries (LINK_CHUNK in link-frames.ts). */
#define LINK_CHUNK 65536
/* The largest frame taken from the server (CLIENT_FRAME_MAX in link-client.ts). */
#define CLIENT_FRAME_MAX (64u * 1048576u)
/* Room kept in the outgoing queue for a resize frame behind the input (and a leave frame). */
#define RESIZE_ROOM 64
/* How long a client told to stop waits for the server's farewell (LEAVE_WAIT_MS in link-client.ts). */
#define LEAVE_WAIT_MS 1000

/* terminal-modes.ts LEAVE, byte for byte (test/native/client.test.ts compares). */
static const char LEAVE[] =
    "\x1b[?7h\x1b[?2026l\x1b[0m\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1l\x1b>\x1b[?2004l\x1b[?25h\x1b[?1049l\x1b[23;0t";

static int link_fd = -1;
static const char *report_path;
static char **then_argv;
static int report_fd = -1;
static struct termios cooked;
static int raw;
static int sig_pipe[2];

static unsigned char outq[2 * (HEADER + LINK_CHUNK) + RESIZE_ROOM];
static size_t outlen;
static int link_unwritable;

static unsigned char rbuf[LINK_CHUNK];
static size_t rpos, rlen;
static unsigned char head[HEADER];
static size_t headlen;
static unsigned type;
static size_t remaining;
static unsigned char *farewell;
static size_t farewell_len;
static int terminal_gone;

static int cols = 80, rows = 24, resize_pending;

/* Whether the client reads its terminal (the server may), and whether the server said so; the attached frame's JSON. */
static int reading, told;
static char attached[128];
static size_t attached_len;

/* Set once a signal told the client to stop: how it ends, and by when. */
static const char *leaving;
static struct timespec leave_by;

static void on_signal(int sig) {
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t ignored = write(sig_pipe[1], &b, 1);
    (void)ignored;
    errno = saved;
}

/* Writes all of data to a descriptor, waiting out EAGAIN for up to a second a time; gives up on an error. */
static void write_all(int fd, const void *data, size_t len) {
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            struct pollfd w = {fd, POLLOUT, 0};
            if (poll(&w, 1, 1000) <= 0) return;
        } else {
            return;
        }
    }
}

/* Tells the report how the link ended, then becomes the --then program, or exits with code. */
static void tell(int code, const char *how, const void *body, size_t len) {
    if (report_fd >= 0 || report_path != NULL) {
        int fd = report_fd >= 0 ? report_fd : open(report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            write_all(fd, how, strlen(how));
            write_all(fd, "\n", 1);
            if (len > 0) write_all(fd, body, len);
            close(fd);
        }
    }
    if (then_argv != NULL) execv(then_argv[0], then_argv);
    exit(code & 0xff);
}

/* Restores the terminal, tells the report how the link ended, and exits with code. */
static void finish(int code, const char *how, const void *body, size_t len) {
    if (!terminal_gone) write_all(STDOUT_FILENO, LEAVE, sizeof LEAVE - 1);
    if (raw) tcsetattr(STDIN_FILENO, TCSADRAIN, &cooked);
    if (link_fd >= 0) close(link_fd);
    tell(code, how, body, len);
}

/* The farewell's code (an integer "code" at the top of the object), else 1, as farewellOf in link-client.ts. */
static int farewell_code(const unsigned char *json, size_t len) {
    size_t i = 0;
    int depth = 0;
    while (i < len && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r')) i++;
    if (i >= len || json[i] != '{') return 1;
    for (; i < len; i++) {
        unsigned char c = json[i];
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == '"') {
            size_t start = ++i;
            while (i < len && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
            if (depth == 1 && i - start == 4 && memcmp(json + start, "code", 4) == 0 && i + 1 < len && json[i + 1] == ':') {
                size_t at = i + 2;
                int negative = at < len && json[at] == '-';
                long value = 0;
                size_t digits = 0;
                if (negative) at++;
                while (at < len && json[at] >= '0' && json[at] <= '9' && digits < 10) value = value * 10 + (json[at++] - '0'), digits++;
                /* An integer ends there; 1.5 or 1e3 or a string is not one. */
                if (digits == 0 || (at < len && (json[at] == '.' || json[at] == 'e' || json[at] == 'E' || (json[at] >= '0' && json[at] <= '9')))) return 1;
                return (int)(negative ? -value : value);
            }
        }
    }
    return 1;
}

/* Sends what is queued for the server; a link that cannot be written to is read on to its end (a farewell may be waiting there). */
static void flush_link(void) {
    while (outlen > 0 && !link_unwritable) {
        ssize_t n = send(link_fd, outq, outlen, MSG_NOSIGNAL);
        if (n > 0) {
            memmove(outq, outq + n, outlen - (size_t)n);
            outlen -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            return;
        } else {
            link_unwritable = 1;
            outlen = 0;
        }
    }
}

static void queue_frame(unsigned char t, const char *payload, size_t len) {
    unsigned char *f = outq + outlen;
    f[0] = t;
    f[1] = (unsigned char)(len >> 24);
    f[2] = (unsigned char)(len >> 16);
    f[3] = (unsigned char)(len >> 8);
    f[4] = (unsigned char)len;
    memcpy(f + HEADER, payload, len);
    outlen += HEADER + len;
}

/* The terminal's size as Node reads it for stdout.columns and rows (0 or none is 80 x 24). */
static void terminal_size(int *c, int *r) {
    struct winsize ws;
    *c = 80;
    *r = 24;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
        if (ws.ws_col > 0) *c = ws.ws_col;
        if (ws.ws_row > 0) *r = ws.ws_row;
    }
}

/* A new size is sent once there is room behind the input queued (Node's stdout 'resize': only a change). */
static void send_resize(void) {
    char json[RESIZE_ROOM - HEADER];
    int n;
    if (outlen + RESIZE_ROOM > sizeof outq) {
        resize_pending = 1;
        return;
    }
    resize_pending = 0;
    n = snprintf(json, sizeof json, "{\"cols\":%d,\"rows\":%d}", cols, rows);
    queue_frame('r', json, (size_t)n);
    flush_link();
}

/* Reads what the terminal typed straight into an input frame. */
static int read_input(void) {
    unsigned char *f = outq + outlen;
    ssize_t n = read(STDIN_FILENO, f + HEADER, LINK_CHUNK);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 1;
    if (n <= 0) return 0; /* end of input, or the terminal hung up (EIO): its SIGHUP follows */
    f[0] = 'i';
    f[1] = (unsigned char)((size_t)n >> 24);
    f[2] = (unsigned char)((size_t)n >> 16);
    f[3] = (unsigned char)((size_t)n >> 8);
    f[4] = (unsigned char)n;
    outlen += HEADER + (size_t)n;
    flush_link();
    return 1;
}

static void frame_done(void) {
    if (type == 'a') {
        attached[attached_len] = '\0';
        told = 1;
        if (strstr(attached, "\"input\":\"tty\"") == NULL) reading = 1;
    }
    if (type == 'd' && leaving != NULL) finish(0, leaving, NULL, 0);
    if (type == 'x' || type == 'd') finish(farewell_code(farewell, farewell_len), type == 'x' ? "frame x" : "frame d", farewell, farewell_len);
}

/* Takes the frames in the read buffer; returns 0 when output is waiting for the terminal to drain. */
static int take_frames(void) {
    while (rpos < rlen) {
        if (headlen < HEADER) {
            head[headlen++] = rbuf[rpos++];
            if (headlen < HEADER) continue;
            type = head[0];
            remaining = ((size_t)head[1] << 24) | ((size_t)head[2] << 16) | ((size_t)head[3] << 8) | head[4];
            if (remaining > CLIENT_FRAME_MAX) {
                char why[96];
                int n = snprintf(why, sizeof why, "link frame too long (%zu bytes, limit %u)", remaining, CLIENT_FRAME_MAX);
                finish(1, "broke", why, (size_t)n);
            }
            if (type == 'o' && !told) told = 1, reading = 1; /* output before the attached frame: an older server */
            if (type == 'a') attached_len = 0;
            if (type == 'x' || type == 'd') {
                farewell = malloc(remaining + 1);
                if (farewell == NULL) finish(1, "broke", "out of memory", 13);
                farewell_len = 0;
            }
            if (remaining == 0) frame_done(), headlen = 0;
            continue;
        }
        size_t n = rlen - rpos < remaining ? rlen - rpos : remaining;
        if (type == 'o' && !terminal_gone) {
            ssize_t w = write(STDOUT_FILENO, rbuf + rpos, n);
            if (w < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
            if (w < 0) terminal_gone = 1; /* EIO: the terminal closed; its SIGHUP detaches */
            else n = (size_t)w;
        } else if (type == 'x' || type == 'd') {
            memcpy(farewell + farewell_len, rbuf + rpos, n);
            farewell_len += n;
        } else if (type == 'a') {
            size_t room = sizeof attached - 1 - attached_len, take = n < room ? n : room;
            memcpy(attached + attached_len, rbuf + rpos, take);
            attached_len += take;
        } /* else a newer server's frame this client does not know: skipped */
        rpos += n;
        remaining -= n;
        if (remaining == 0) frame_done(), headlen = 0;
        else if (type == 'o' && !terminal_gone && rpos < rlen) return 0; /* a partial write */
    }
    return 1;
}

/* Milliseconds from now until ts (0 when past). */
static int ms_until(const struct timespec *ts) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (ts->tv_sec - now.tv_sec) * 1000 + (ts->tv_nsec - now.tv_nsec) / 1000000;
    return ms < 0 ? 0 : (int)ms;
}

/* Told to stop: asks the server to let go of the terminal first; a second signal, or no link to ask, ends at once. */
static void leave(const char *how) {
    if (leaving != NULL || link_unwritable || outlen + HEADER > sizeof outq) finish(0, leaving != NULL ? leaving : how, NULL, 0);
    leaving = how;
    clock_gettime(CLOCK_MONOTONIC, &leave_by);
    leave_by.tv_sec += LEAVE_WAIT_MS / 1000;
    leave_by.tv_nsec += (long)(LEAVE_WAIT_MS % 1000) * 1000000;
    if (leave_by.tv_nsec >= 1000000000) leave_by.tv_sec++, leave_by.tv_nsec -= 1000000000;
    queue_frame('q', "", 0);
    flush_link();
}

/* Appends the hello's "tty" member for the terminal on stdout, when it is one a path can name safely (no escaping). */
static int tty_claim(char *out, size_t room) {
    struct stat st;
    const char *env = getenv("TAI_DIRECT_TTY");
    if ((env != NULL && strcmp(env, "0") == 0) || !isatty(STDOUT_FILENO) || fstat(STDOUT_FILENO, &st) != 0 || !S_ISCHR(st.st_mode)) return 0;
    const char *path = ttyname(STDOUT_FILENO);
    if (path == NULL || strncmp(path, "/dev/", 5) != 0 || strlen(path) > 200) return 0;
    for (const char *c = path; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '/' || *c == '.' || *c == '_' || *c == '-')) return 0;
    int n = snprintf(out, room, ",\"tty\":{\"path\":\"%s\",\"rdev\":%llu,\"dev\":%llu}", path, (unsigned long long)st.st_rdev, (unsigned long long)st.st_dev);
    return n > 0 && (size_t)n < room ? n : 0;
}

static int connect_path(const char *path) {
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || strlen(path) >= sizeof a.sun_path) return -1;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strcpy(a.sun_path, path);
    return connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? fd : -1;
}

static void usage(void) {
    static const char text[] = "usage: tai-client (--fd N | --link PATH) [--read-only] [--report PATH | --report-fd N] [--then PROGRAM ARG...]\n";
    write_all(STDERR_FILENO, text, sizeof text - 1);
    exit(64);
}

/* The command line into the globals; a wrong one ends with the usage. Returns the link's path, if one was named. */
static const char *parse_args(int argc, char **argv, int *read_only) {
    const char *link_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fd") == 0 && i + 1 < argc) link_fd = atoi(argv[++i]);
        else if (strcmp(argv[i], "--link") == 0 && i + 1 < argc) link_path = argv[++i];
        else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc) report_path = argv[++i];
        else if (strcmp(argv[i], "--report-fd") == 0 && i + 1 < argc) report_fd = atoi(argv[++i]);
        else if (strcmp(argv[i], "--read-only") == 0) *read_only = 1;
        else if (strcmp(argv[i], "--then") == 0 && i + 1 < argc) {
            then_argv = argv + i + 1; /* the rest of the line is the program's */
            break;
        } else usage();
    }
    if ((link_fd < 0) == (link_path == NULL)) usage();
    return link_path;
}

/* Signals reach the loop through sig_pipe; the parent's death is a SIGHUP. */
static void install_signals(void) {
    if (pipe(sig_pipe) != 0) exit(1);
    for (int i = 0; i < 2; i++) {
        fcntl(sig_pipe[i], F_SETFL, O_NONBLOCK);
        fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    /* No SA_RESTART: a signal interrupts a blocked write to the terminal, so a stuck terminal cannot keep the client. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    int handled[] = {SIGHUP, SIGTERM, SIGINT, SIGWINCH};
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) sigaction(handled[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
#ifdef __linux__
    /* tai waits on this client: killed itself (SIGKILL), it leaves the shell to read the terminal, and this client
       must not go on reading it beside the shell in raw mode. Its death is a SIGHUP here: leave, restore and go quietly. */
    if (report_fd >= 0) {
        pid_t parent = getppid();
        prctl(PR_SET_PDEATHSIG, SIGHUP);
        if (getppid() != parent) raise(SIGHUP);
    }
#endif
}

/* Raw mode as libuv's UV_TTY_MODE_RAW sets it (Node's setRawMode). */
static void enter_raw_mode(void) {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &cooked) != 0) return;
    struct termios t = cooked;
    t.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    t.c_oflag |= ONLCR;
    t.c_cflag |= CS8;
    t.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    raw = tcsetattr(STDIN_FILENO, TCSADRAIN, &t) == 0;
}

/* After raw mode: a key typed once the server has the hello is never echoed by the terminal. */
static void send_hello(int read_only) {
    terminal_size(&cols, &rows);
    char claim[320] = "";
    /* The terminal is offered whole (its output and its keys) only when the keys come from it (not a pipe on stdin),
       as link-client.ts does; offering it, the client reads nothing until it is answered. */
    struct stat in_st, out_st;
    int same = isatty(STDIN_FILENO) && fstat(STDIN_FILENO, &in_st) == 0 && fstat(STDOUT_FILENO, &out_st) == 0 && in_st.st_rdev == out_st.st_rdev &&
               in_st.st_dev == out_st.st_dev;
    reading = !same || tty_claim(claim, sizeof claim) == 0;
    char hello[480];
    int n = snprintf(hello, sizeof hello, "{\"version\":%d,\"mode\":\"attach\",\"cols\":%d,\"rows\":%d%s%s%s}", LINK_VERSION, cols, rows,
                     read_only ? ",\"readOnly\":true" : "", claim, reading ? "" : ",\"ttyInput\":true");
    queue_frame('h', hello, (size_t)n);
    flush_link();
}

/* The signals the handler queued, acted on in the loop. */
static void take_signals(void) {
    unsigned char sigs[16];
    ssize_t got;
    while ((got = read(sig_pipe[0], sigs, sizeof sigs)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            switch (sigs[i]) {
            /* The terminal closed, or tai died (PDEATHSIG) with the server still on the terminal: let it finish first. */
            case SIGHUP: leave("signal SIGHUP"); break;
            case SIGTERM: leave("signal SIGTERM"); break;
            case SIGINT: leave("signal SIGINT"); break;
            case SIGWINCH: {
                int c, r;
                terminal_size(&c, &r);
                if (c != cols || r != rows) cols = c, rows = r, send_resize();
                break;
            }
            default: break;
            }
        }
    }
}

/* The link's next read, taken as frames; its end ends the client. */
static void read_link(void) {
    ssize_t got = read(link_fd, rbuf, sizeof rbuf);
    if (got > 0) {
        rpos = 0;
        rlen = (size_t)got;
        take_frames();
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        if (leaving != NULL) finish(0, leaving, NULL, 0);
        finish(1, "closed", NULL, 0);
    }
}

/* One poll over the signals, the link, the keys and the terminal, until the client finishes. */
static void run(void) {
    int input_open = 1;
    for (;;) {
        int draining = rpos < rlen; /* output waits for the terminal */
        struct pollfd p[4];
        nfds_t np = 0;
        p[np++] = (struct pollfd){sig_pipe[0], POLLIN, 0};
        short link_events = (short)((draining ? 0 : POLLIN) | (outlen > 0 && !link_unwritable ? POLLOUT : 0));
        /* Left out while it is asked nothing: a closed link's POLLHUP would spin the loop while the terminal drains. */
        p[np++] = (struct pollfd){link_events == 0 ? -1 : link_fd, link_events, 0};
        int want_input = reading && input_open && outlen + HEADER + LINK_CHUNK + RESIZE_ROOM <= sizeof outq;
        nfds_t in_at = np;
        if (want_input) p[np++] = (struct pollfd){STDIN_FILENO, POLLIN, 0};
        nfds_t out_at = np;
        if (draining) p[np++] = (struct pollfd){STDOUT_FILENO, POLLOUT, 0};
        int polled = poll(p, np, leaving != NULL ? ms_until(&leave_by) : -1);
        if (polled < 0) {
            if (errno == EINTR) continue;
            finish(1, "broke", "poll failed", 11);
        }
        if (polled == 0 && leaving != NULL) finish(0, leaving, NULL, 0); /* no farewell in time: go all the same */
        if (p[0].revents & POLLIN) take_signals();
        if (want_input && (p[in_at].revents & (POLLIN | POLLHUP | POLLERR))) input_open = read_input();
        if (p[1].revents & POLLOUT) flush_link();
        if (resize_pending) send_resize();
        if (draining && (p[out_at].revents & (POLLOUT | POLLERR | POLLHUP))) take_frames();
        if (!draining && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) read_link();
    }
}

int main(int argc, char **argv) {
    int read_only = 0;
    const char *link_path = parse_args(argc, argv, &read_only);
    if (link_path != NULL && (link_fd = connect_path(link_path)) < 0) {
        char why[256];
        int n = snprintf(why, sizeof why, "tai-client: cannot connect to %s: %s\n", link_path, strerror(errno));
        /* The terminal was never touched: the report tells the farewell (when there is one to become), else stderr. */
        if (then_argv != NULL) tell(1, "broke", why + 12, (size_t)n - 13);
        write_all(STDERR_FILENO, why, (size_t)n);
        return 1;
    }
    fcntl(link_fd, F_SETFL, fcntl(link_fd, F_GETFL) | O_NONBLOCK);
    fcntl(link_fd, F_SETFD, FD_CLOEXEC);
    if (report_fd >= 0) fcntl(report_fd, F_SETFD, FD_CLOEXEC);
    install_signals();
    enter_raw_mode();
    send_hello(read_only);
    run();
}
