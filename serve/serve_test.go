package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// client drives a Server in process through pipes.
type client struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func newClient(t *testing.T) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	c.out.Buffer(nil, 1<<24)
	go func() {
		err := New(inR, outW).Serve()
		outW.Close()
		c.done <- err
	}()
	return c
}

func (c *client) send(format string, args ...any) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.in, format+"\n", args...); err != nil {
		c.t.Fatal(err)
	}
}

// response reads lines until the response (not an event) to id.
func (c *client) response(id int) map[string]any {
	c.t.Helper()
	for c.out.Scan() {
		var m map[string]any
		if err := json.Unmarshal(c.out.Bytes(), &m); err != nil {
			c.t.Fatalf("%v: %s", err, c.out.Text())
		}
		if _, ev := m["event"]; ev || m["id"] != float64(id) {
			continue
		}
		return m
	}
	c.t.Fatalf("no response to request %d", id)
	return nil
}

func (c *client) close() {
	c.in.Close()
	if err := <-c.done; err != nil {
		c.t.Errorf("Serve: %v", err)
	}
}

// endless is a model the switching oracle does not certify at eps 1e-12
// in its 10^6 outer iterations: a solve of it runs until it is stopped
// (the time limit is a backstop against a hang).
const endless = `"var x[20] in box(-1, 1)\nminimize sum(i in 1..20) abs(x[i] - 0.3 * i / 20)\n"`

var endlessFlags = `["--oracle=switching", "--eps=1e-12", "--outer=1000000", "--time-limit=300"]`

// TestInterruptBeforeTheSolveStarts: an interrupt of a solve sent right
// after it, before the server started it, still stops it, and the
// server answers the next request.
func TestInterruptBeforeTheSolveStarts(t *testing.T) {
	c := newClient(t)
	defer c.close()
	c.send(`{"id": 1, "op": "load", "source": %s}`, endless)
	if r := c.response(1); r["ok"] != true {
		t.Fatalf("load: %v", r)
	}
	// another solve first: the interrupt of request 3 is read while 3
	// waits for it to end, or just after 3 starts
	sent := make(chan struct{})
	go func() { // the server takes a request only when the last one is answered
		defer close(sent)
		c.send(`{"id": 2, "op": "solve", "model": "m1", "flags": ["--oracle=switching", "--outer=3"]}`)
		c.send(`{"id": 3, "op": "solve", "model": "m1", "flags": %s}`, endlessFlags)
		c.send(`{"op": "interrupt", "target": 3}`)
	}()
	r := c.response(2)
	if res := r["result"].(map[string]any); res["status"] == "interrupted" {
		t.Errorf("request 2 was interrupted; only 3 was")
	}
	r = c.response(3)
	if res := r["result"].(map[string]any); res["status"] != "interrupted" {
		t.Errorf("request 3: status %v, want interrupted", res["status"])
	}
	<-sent
	c.send(`{"id": 4, "op": "hello"}`)
	if r := c.response(4); r["ok"] != true {
		t.Errorf("hello after the interrupt: %v", r)
	}
}

// TestInterruptRunningSolve: an interrupt while a solve runs (after its
// first progress event) ends it with status interrupted and a point.
func TestInterruptRunningSolve(t *testing.T) {
	c := newClient(t)
	defer c.close()
	c.send(`{"id": 1, "op": "load", "source": %s}`, endless)
	c.response(1)
	c.send(`{"id": 2, "op": "solve", "model": "m1", "flags": %s, "progress": 0.01}`, endlessFlags)
	for c.out.Scan() { // the first progress event
		var m map[string]any
		if json.Unmarshal(c.out.Bytes(), &m) == nil && m["event"] == "progress" {
			break
		}
	}
	c.send(`{"op": "interrupt"}`)
	res := c.response(2)["result"].(map[string]any)
	if res["status"] != "interrupted" {
		t.Fatalf("status %v, want interrupted", res["status"])
	}
	x := res["variables"].(map[string]any)["x"].([]any)
	if len(x) != 20 {
		t.Errorf("x has %d values, want 20", len(x))
	}
}
