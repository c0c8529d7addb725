package main
import ("testing";"os";"io";"strings")
func TestProfPhase(t *testing.T) {
	args := strings.Fields(os.Getenv("PROF_ARGS"))
	run(args, nil, os.Stdout, io.Discard)
}
