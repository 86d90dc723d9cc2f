package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The shell snippets of docs/ are run by the tests of snippets_*_test.go
// as a reader pastes them: each line by bash, in a directory holding the
// built etalake (./etalake there, etalake on the PATH), read from the page
// at the test's start so that editing the page changes what runs.

// docShellBlock returns the ```sh block of README.md or docs/*.md that
// holds every marker.
func docShellBlock(t *testing.T, markers ...string) mdBlock {
	t.Helper()
	for _, b := range docBlocks(t) {
		if b.lang == "sh" && !slices.ContainsFunc(markers, func(m string) bool { return !strings.Contains(b.text, m) }) {
			return b
		}
	}
	t.Fatalf("README.md and docs/*.md have no ```sh block with %q", markers)
	return mdBlock{}
}

// shellCommentRE is where a shell comment starts on a line of a snippet:
// a '#' after a blank (none of the snippets quotes one).
var shellCommentRE = regexp.MustCompile(`(^|\s)#(\s|$)`)

// shellLine is a line of a snippet: the command, the comment after it,
// which says what the command does, and where it is (file:line).
type shellLine struct {
	command, comment, where string
}

// shellLines returns a block's commands, the blank and comment-only lines
// left out.
func shellLines(b mdBlock) []shellLine {
	var lines []shellLine
	for i, l := range strings.Split(b.text, "\n") {
		cmd, comment := l, ""
		if loc := shellCommentRE.FindStringIndex(l); loc != nil {
			hash := loc[0] + strings.Index(l[loc[0]:], "#")
			cmd, comment = l[:hash], strings.TrimSpace(l[hash+1:])
		}
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			lines = append(lines, shellLine{command: cmd, comment: comment, where: fmt.Sprintf("%s:%d", b.file, b.line+1+i)})
		}
	}
	return lines
}

// snippetShell is a directory of the test's holding the built etalake,
// and the environment its commands run in: the test's own without its
// ETALAKE_* settings, the directory's bin on the PATH, a state directory
// (the rate limiter's) of the test's, and what the test adds.
type snippetShell struct {
	dir string
	env []string
}

func newSnippetShell(t *testing.T, env ...string) *snippetShell {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here: the snippets are shell commands")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(buildEtalake(t), filepath.Join(bin, "etalake")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(bin, "etalake"), filepath.Join(dir, "etalake")); err != nil {
		t.Fatal(err)
	}
	base := append(withoutEtalakeEnv(os.Environ()), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ETALAKE_STATE_DIR="+filepath.Join(dir, "state"))
	return &snippetShell{dir: dir, env: append(base, env...)}
}

// command is bash running script in the shell's directory, with env
// added to the shell's, in a process group of its own (so that what it
// starts is stopped with it).
func (s *snippetShell) command(ctx context.Context, script string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
	cmd.Dir = s.dir
	cmd.Env = append(slices.Clone(s.env), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// run runs script to its end and returns what it printed (stdout and
// stderr); a script that has not ended in 5 minutes is killed.
func (s *snippetShell) run(t *testing.T, script string, env ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := s.command(ctx, script, env...).CombinedOutput()
	return string(out), err
}

// fastSimulator is a snippet shell and the demo simulator it serves
// (`etalake sim serve`), both at 1000 requests a second, so that no
// command waits out the provider's 10 in 10 s.
func fastSimulator(t *testing.T) (*snippetShell, *served) {
	t.Helper()
	sh := newSnippetShell(t, "ETALAKE_RATE=1000/1s")
	return sh, sh.serve(t, "./etalake sim serve --addr 127.0.0.1:0 --rate 1000/1s")
}

// runOKRE is the summary's first line of a run that ended ok; its group
// is the run's id.
var runOKRE = regexp.MustCompile(`(?m)^run (\S+) for \S+: ok in`)

// served is a server a snippet starts with '&': the export line it
// printed first, as variables, and what it wrote on stderr.
type served struct {
	export map[string]string
	line   string
	stderr *syncBuffer
	stop   func()
}

// environ is the server's export line as a process's environment.
func (sv *served) environ() []string {
	var env []string
	for k, v := range sv.export {
		env = append(env, k+"="+v)
	}
	return env
}

// serve starts line (without its '&') as bash's own process and reads
// the export line it prints first; the server is stopped by stop, or when
// the test ends.
func (s *snippetShell) serve(t *testing.T, line string, env ...string) *served {
	t.Helper()
	cmd := s.command(context.Background(), "exec "+strings.TrimSuffix(strings.TrimSpace(line), "&"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sv := &served{export: map[string]string{}, stderr: newSyncBuffer()}
	cmd.Stderr = sv.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sv.stop = sync.OnceFunc(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	t.Cleanup(sv.stop)
	first := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- l
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case sv.line = <-first:
	case <-time.After(time.Minute):
		t.Fatalf("%s printed no line in a minute; stderr:\n%s", line, sv.stderr)
	}
	sv.line = strings.TrimSpace(sv.line)
	fields := strings.Fields(sv.line)
	if len(fields) < 2 || fields[0] != "export" {
		t.Fatalf("%s: its first line should be an export line for a shell; it is %q; stderr:\n%s", line, sv.line, sv.stderr)
	}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		sv.export[k] = strings.Trim(v, "'")
	}
	return sv
}

// replaceAll replaces each placeholder of a snippet by the test's value,
// failing when the snippet no longer holds one: the test would then run
// something other than the page says.
func replaceAll(t *testing.T, b mdBlock, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(b.text, pairs[i]) {
			t.Fatalf("%s:%d: the block no longer holds %q, which the test replaces by its own", b.file, b.line, pairs[i])
		}
	}
	return strings.NewReplacer(pairs...).Replace(b.text)
}

// exportsOf returns the export lines of a snippet's commands, joined as
// a script's start, and the other commands.
func exportsOf(lines []shellLine) (exports string, commands []shellLine) {
	for _, l := range lines {
		if strings.HasPrefix(l.command, "export ") {
			exports += l.command + "\n"
			continue
		}
		commands = append(commands, l)
	}
	return exports, commands
}
