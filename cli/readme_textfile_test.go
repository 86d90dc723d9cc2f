package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// imageUID is the Dockerfile's user, distroless's nonroot.
const imageUID = 65532

// TestREADMEKubernetesTextfileWritable: the CronJob's worker, uid 65532,
// can write its metrics file where the recipe puts it. Kubernetes'
// PodSecurityContext.fsGroup: "Some volume types allow the Kubelet to
// change the ownership of that volume to be owned by the pod: 1. The
// owning GID will be the FSGroup 2. The setgid bit is set (new files
// created in the volume will be owned by FSGroup) 3. The permission bits
// are OR'd with rw-rw----". A claim or an emptyDir is such a volume; a
// hostPath, the node's own directory, is not, so there an init container
// must hand the directory to the image's group. The test runs that
// container's command on a directory made as the node's (root's, 0755)
// and checks group 65532 may then write it, and that the worker is in
// that group.
func TestREADMEKubernetesTextfileWritable(t *testing.T) {
	var tmpl string
	for _, b := range docBlocks(t) {
		if b.lang == "yaml" && strings.HasPrefix(b.text, "# etalake-worker.yaml\n") {
			tmpl = b.text
		}
	}
	if tmpl == "" {
		t.Fatal("README.md and docs/*.md have no ```yaml block starting # etalake-worker.yaml")
	}
	job, _ := parseWorkerYAML(t, strings.NewReplacer("${KEY}", "a", "${I}", "1", "${N}", "2").Replace(tmpl))
	pod := job.Spec.JobTemplate.Spec.Template.Spec
	if len(pod.Containers) != 1 || pod.SecurityContext.RunAsUser != imageUID {
		t.Fatalf("the CronJob's pod runs %d containers as uid %d; want one, as the image's %d", len(pod.Containers), pod.SecurityContext.RunAsUser, imageUID)
	}
	c := pod.Containers[0]
	var metrics string
	for _, e := range c.Env {
		if e.Name == "ETALAKE_METRICS_FILE" {
			metrics = e.Value
		}
	}
	var volume, mountPath string
	for _, m := range c.VolumeMounts {
		if metrics != "" && filepath.Dir(metrics) == m.MountPath {
			volume, mountPath = m.Name, m.MountPath
		}
	}
	if volume == "" {
		t.Fatalf("the worker's ETALAKE_METRICS_FILE %q is not in a directory it mounts", metrics)
	}
	inGroup := pod.SecurityContext.FSGroup != nil && *pod.SecurityContext.FSGroup == imageUID
	for _, v := range pod.Volumes {
		if v.Name != volume {
			continue
		}
		if v.HostPath.Path == "" {
			if !inGroup || (v.EmptyDir == nil && v.PersistentVolumeClaim.ClaimName == "") {
				t.Errorf("the textfile volume %s: want a claim or an emptyDir with fsGroup %d, or a hostPath handed to that group", volume, imageUID)
			}
			return
		}
		if !inGroup {
			t.Errorf("the pod's fsGroup is not %d: the worker is not in the group the textfile directory is handed to", imageUID)
		}
		checkTextfileInit(t, pod.InitContainers, volume, mountPath)
		return
	}
	t.Fatalf("no volume %s", volume)
}

// checkTextfileInit runs the command of the init container that mounts
// the hostPath volume, on a directory made as the node's.
func checkTextfileInit(t *testing.T, inits []initContainerYAML, volume, workerPath string) {
	t.Helper()
	var command []string
	var at string
	for _, ic := range inits {
		for _, m := range ic.VolumeMounts {
			if m.Name == volume {
				command, at = ic.Command, m.MountPath
			}
		}
	}
	if len(command) == 0 {
		t.Fatalf("the textfile volume is a hostPath, the node's directory (root's), and no init container mounting it gives it to group %d: the worker (uid %d) cannot write its metrics file at %s", imageUID, imageUID, workerPath)
	}
	if os.Geteuid() != 0 {
		t.Skipf("not root: the init container's command %q cannot be run here to hand a directory to group %d", command, imageUID)
	}
	dir := filepath.Join(t.TempDir(), "textfile")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range command {
		args = append(args, strings.ReplaceAll(a, at, dir))
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("the init container's %q: %v\n%s", args, err, out)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	writable := (st.Uid == imageUID && fi.Mode().Perm()&0o200 != 0) || (st.Gid == imageUID && fi.Mode().Perm()&0o020 != 0)
	if !writable {
		t.Errorf("after the init container, the textfile directory is uid %d gid %d mode %v: uid %d (group %d) cannot write it", st.Uid, st.Gid, fi.Mode().Perm(), imageUID, imageUID)
	}
}
