package load

// ForgetReadersTemplates empties this process's cache of readers'
// templates, as a new process starts: a test of what a crash left under
// .work/ needs the build a new process would do.
func ForgetReadersTemplates() {
	templates.Clear()
}
