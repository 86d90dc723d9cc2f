package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/etalake/etalake/internal/pgtest"
)

// runCronJobs renders the CronJob for each key and shard, checks the
// exit-code contract it states, and runs each worker's container as a
// process: its args, its env, the ConfigMap's settings, and each mount a
// directory of its volume.
func runCronJobs(t *testing.T, tmpl string) {
	f := newFleet(t)
	coordinator := pgtest.Start(t).URL
	root := t.TempDir()
	before := len(f.env.Service.Ledger())
	var files []string
	type worker struct {
		name string
		cmd  *exec.Cmd
	}
	var workers []worker
	for _, key := range []string{"a", "b"} {
		for i := 1; i <= fleetShards; i++ {
			doc := strings.NewReplacer("${KEY}", key, "${I}", fmt.Sprint(i), "${N}", fmt.Sprint(fleetShards)).Replace(tmpl)
			job, cm := parseWorkerYAML(t, doc)
			name := fmt.Sprintf("%s-%dof%d", key, i, fleetShards)
			if job.Metadata.Name != "etalake-"+name {
				t.Errorf("the CronJob of key %s shard %d is named %q", key, i, job.Metadata.Name)
			}
			js := job.Spec.JobTemplate.Spec
			pod := js.Template.Spec
			if job.Spec.ConcurrencyPolicy != "Forbid" || pod.RestartPolicy != "Never" || len(pod.Containers) != 1 {
				t.Fatalf("%s: concurrencyPolicy %q, restartPolicy %q, %d containers; want Forbid, Never (podFailurePolicy needs it), one", name, job.Spec.ConcurrencyPolicy, pod.RestartPolicy, len(pod.Containers))
			}
			contract := map[int]string{}
			for _, r := range js.PodFailurePolicy.Rules {
				for _, v := range r.OnExitCodes.Values {
					if r.OnExitCodes.Operator == "In" && r.OnExitCodes.ContainerName == pod.Containers[0].Name {
						contract[v] = r.Action
					}
				}
			}
			if contract[exitUsage] != "FailJob" || contract[exitBusy] != "Ignore" || contract[exitPartial] != "" || js.BackoffLimit < 1 {
				t.Errorf("%s: podFailurePolicy %v, backoffLimit %d; want 2 FailJob, 75 Ignore, 3 retried (backoffLimit ≥ 1)", name, contract, js.BackoffLimit)
			}
			c := pod.Containers[0]
			// Each mount is a directory of its volume: the worker's own
			// claim, its key's secret, the shared selection and textfile.
			m := remap{}
			for _, vm := range c.VolumeMounts {
				var dir string
				for _, v := range pod.Volumes {
					if v.Name != vm.Name {
						continue
					}
					switch {
					case v.PersistentVolumeClaim.ClaimName != "":
						dir = filepath.Join(root, "pvc", v.PersistentVolumeClaim.ClaimName)
					case v.Secret.SecretName != "":
						dir = filepath.Join(root, "secret", v.Secret.SecretName)
						f.writeSelection(t, dir, key)
					case v.ConfigMap.Name != "":
						dir = filepath.Join(root, "configmap", v.ConfigMap.Name)
						f.writeSelection(t, filepath.Join(dir, key), key)
					case v.HostPath.Path != "":
						dir = filepath.Join(root, "host", v.HostPath.Path)
					}
				}
				if dir == "" {
					t.Fatalf("%s: mount %s names no volume the test knows", name, vm.Name)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				m[vm.MountPath] = dir
			}
			env := map[string]string{}
			for k, v := range cm.Data {
				env[k] = v
			}
			f.settings(t, env)
			for _, e := range c.Env {
				env[e.Name] = m.apply(e.Value)
			}
			// The key's limit, shared by its shards, which run at once on
			// any node, through the coordinator: the recipe leaves the
			// rate at the service's 10/10s, which the test makes the
			// simulator's 1000/1s, the coordinator a private Postgres.
			if rate, set := env["ETALAKE_RATE"]; set {
				t.Errorf("%s: ETALAKE_RATE %q: the shards share the key's whole limit through ETALAKE_COORDINATION, a split of it is wasted", name, rate)
			}
			if env["ETALAKE_COORDINATION"] == "" {
				t.Errorf("%s: no ETALAKE_COORDINATION: shards on several nodes would together break the key's limit", name)
			}
			env["ETALAKE_RATE"], env["ETALAKE_COORDINATION"] = "1000/1s", coordinator
			var args []string
			for _, a := range c.Args {
				args = append(args, m.apply(a))
			}
			var vars []string
			for k, v := range env {
				vars = append(vars, k+"="+v)
			}
			files = append(files, env["ETALAKE_METRICS_FILE"])
			workers = append(workers, worker{name, etalakeProcess(t, vars, args...)})
		}
	}
	// The CronJobs start at once.
	var outs []*bytes.Buffer
	for _, w := range workers {
		var out bytes.Buffer
		w.cmd.Stdout, w.cmd.Stderr = &out, &out
		outs = append(outs, &out)
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range workers {
		if err := w.cmd.Wait(); err != nil {
			t.Errorf("%s: %v\n%s", w.name, err, outs[i])
		}
	}
	f.check(t, before, files)
}

// workerYAML is what the test reads of the rendered template.
type workerYAML struct {
	Kind     string
	Metadata struct{ Name string }
	Data     map[string]string
	Spec     struct {
		ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
		JobTemplate       struct {
			Spec struct {
				BackoffLimit     int `yaml:"backoffLimit"`
				PodFailurePolicy struct {
					Rules []struct {
						Action      string
						OnExitCodes struct {
							ContainerName string `yaml:"containerName"`
							Operator      string
							Values        []int
						} `yaml:"onExitCodes"`
					}
				} `yaml:"podFailurePolicy"`
				Template struct {
					Spec struct {
						RestartPolicy   string `yaml:"restartPolicy"`
						SecurityContext struct {
							RunAsUser int  `yaml:"runAsUser"`
							FSGroup   *int `yaml:"fsGroup"`
						} `yaml:"securityContext"`
						InitContainers []initContainerYAML `yaml:"initContainers"`
						Containers     []struct {
							Name         string
							Args         []string
							Env          []struct{ Name, Value string }
							VolumeMounts []struct {
								Name      string
								MountPath string `yaml:"mountPath"`
							} `yaml:"volumeMounts"`
						}
						Volumes []struct {
							Name                  string
							PersistentVolumeClaim struct {
								ClaimName string `yaml:"claimName"`
							} `yaml:"persistentVolumeClaim"`
							Secret struct {
								SecretName string `yaml:"secretName"`
							}
							ConfigMap struct{ Name string } `yaml:"configMap"`
							HostPath  struct{ Path string } `yaml:"hostPath"`
							EmptyDir  *struct{}             `yaml:"emptyDir"`
						}
					}
				}
			}
		} `yaml:"jobTemplate"`
	}
}

// initContainerYAML is what the test reads of an init container.
type initContainerYAML struct {
	Name         string
	Command      []string
	VolumeMounts []struct {
		Name      string
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// parseWorkerYAML parses the rendered template: a CronJob and the
// ConfigMap its container reads.
func parseWorkerYAML(t *testing.T, doc string) (job, cm workerYAML) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(doc))
	for {
		var d workerYAML
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("the README's CronJob template does not parse as YAML: %v", err)
		}
		switch d.Kind {
		case "CronJob":
			job = d
		case "ConfigMap":
			cm = d
		}
	}
	if job.Kind == "" || cm.Kind == "" {
		t.Fatal("the README's template wants a CronJob and a ConfigMap")
	}
	return job, cm
}
