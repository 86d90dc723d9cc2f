package cli

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDockerfileBuildsWhatTheREADMEUses: no Docker engine runs here, so
// the image is not built in tests; what can drift is checked instead. The
// build stage's Go is at least go.mod's, its build command has the tag and
// cgo, the runtime stage has glibc and libstdc++ (DuckDB's C++), and the
// Kubernetes CronJob runs the image the README's docker build tags.
func TestDockerfileBuildsWhatTheREADMEUses(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	dockerfile := string(b)
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}

	from := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(dockerfile, -1)
	if len(from) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a runtime stage", len(from))
	}
	goImage := regexp.MustCompile(`^golang:(\d+)\.(\d+)`).FindStringSubmatch(from[0][1])
	need := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindStringSubmatch(string(gomod))
	if goImage == nil || need == nil {
		t.Fatalf("want the build stage FROM golang:X.Y and go.mod's go line; got %q and %q", from[0][1], need)
	}
	if goMinorVersion(goImage) < goMinorVersion(need) {
		t.Errorf("the build stage's Go %s.%s is older than go.mod's go %s.%s", goImage[1], goImage[2], need[1], need[2])
	}

	build := regexp.MustCompile(`(?m)^RUN .*\bgo build\b.*$`).FindString(dockerfile)
	for _, want := range []string{"-tags duckdb_arrow", "CGO_ENABLED=1"} {
		if !strings.Contains(build, want) {
			t.Errorf("the Dockerfile's build command %q lacks %s", build, want)
		}
	}
	if runtime := from[len(from)-1][1]; !strings.Contains(runtime, "distroless/cc") && !strings.Contains(runtime, "debian") {
		t.Errorf("the runtime stage is %s: DuckDB needs glibc and libstdc++ (distroless/cc or a Debian image)", runtime)
	}

	text := docsText(t)
	tag := regexp.MustCompile(`docker build .*-t (\S+) \.`).FindStringSubmatch(text)
	// The images etalake runs as (an init container's busybox aside).
	var images []string
	for _, m := range regexp.MustCompile(`(?m)^\s+image: (\S+)`).FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "etalake") {
			images = append(images, m[1])
		}
	}
	if tag == nil || len(images) == 0 {
		t.Fatalf("README.md and docs/*.md should show docker build -t IMAGE and the CronJob's image: IMAGE (found %q, %q)", tag, images)
	}
	for _, image := range images {
		if image != tag[1] {
			t.Errorf("a CronJob runs %s but the docs build %s", image, tag[1])
		}
	}
}

func goMinorVersion(m []string) int {
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major*1000 + minor
}
