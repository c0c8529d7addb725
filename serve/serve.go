// Package serve is qrc serve: a long-lived qrc process that a client
// program (the Python package in python/) drives through a pipe, one JSON
// request a line on standard input and one JSON response a line on
// standard output (docs/python.md, "The protocol").
//
// A client sends data tables and matrices once ("frame", the values as
// raw little-endian float64 after the request line), loads models that
// use them ("load": a file or a model's text, data sets by frame or by
// file, parameters), and solves a loaded model as many times as it likes
// ("solve": qrc solve's flags, a start, progress events while it runs).
// A model is loaded, checked and compiled by the library as qrc solve
// loads it, and solved by Model.Solve with the options solvecmd makes
// of qrc solve's flags, so a solve here is qrc solve's computation: the
// same data give bit for bit the same result. Frames and files are kept
// between loads, so changing a parameter and solving again warm (the
// REPL's use) costs a check and a compile, not a new transfer.
//
// Requests are served one at a time, in order; while a solve runs the
// server still reads its input, and a request {"op": "interrupt"} stops
// the solve as Ctrl-C stops qrc solve (status interrupted, the best point
// so far). The end of the input stops a running solve and ends the
// server. Every response carries the request's id; a request that fails
// gets {"id": N, "ok": false, "error": {...}}, never a dead server.
package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
	"github.com/qrc-lang/qrc/summary"
)

// Protocol is the version of the protocol; "hello" returns it, and a
// client refuses a server whose version it does not know.
const Protocol = 1

// MaxLine is the longest request line: a model's text, a start point.
const MaxLine = 256 << 20

// Server is one session of qrc serve.
type Server struct {
	// Version is what "hello" reports as the server's version.
	Version string

	in  *bufio.Reader
	out io.Writer
	mu  sync.Mutex // serializes writes to out

	frames  map[string]*frame
	models  map[string]*qrc.Model
	nextID  int
	cache   data.Cache
	running struct {
		sync.Mutex
		id     int64 // the running solve's request
		cancel context.CancelFunc
		early  int64 // an interrupt of this request came before its solve started
		closed bool  // the input ended: every solve stops at once
	}
}

// New returns a server reading requests from in and writing responses to
// out.
func New(in io.Reader, out io.Writer) *Server {
	return &Server{in: bufio.NewReaderSize(in, 1<<16), out: out, frames: map[string]*frame{}, models: map[string]*qrc.Model{}}
}

// request is any request; each op uses some of the fields.
type request struct {
	ID int64  `json:"id"`
	Op string `json:"op"`

	// frame
	Frame   *frameRequest `json:"frame,omitempty"`
	Payload int64         `json:"payload,omitempty"` // bytes after the line

	// load
	File   string               `json:"file,omitempty"`
	Source *string              `json:"source,omitempty"`
	Name   string               `json:"name,omitempty"` // the file name of a source in diagnostics
	Dir    string               `json:"dir,omitempty"`  // data paths are relative to it; default the file's directory
	Data   map[string]dataGiven `json:"data,omitempty"`
	Params []paramGiven         `json:"params,omitempty"`

	// solve (and free)
	Model    string          `json:"model,omitempty"`
	Handle   string          `json:"handle,omitempty"` // free: a frame
	Flags    []string        `json:"flags,omitempty"`
	Start    json.RawMessage `json:"start,omitempty"` // "model", "random" or a point file's JSON object
	Progress float64         `json:"progress,omitempty"`

	// interrupt: the solve request to stop (0: the running one)
	Target int64 `json:"target,omitempty"`

	payload []byte
}

// dataGiven is a data set of a load request: a frame sent before, or a
// file read with the model's loader and options.
type dataGiven struct {
	Frame string `json:"frame,omitempty"`
	Path  string `json:"path,omitempty"`
}

// paramGiven overrides a parameter with an expression (qrc's --set).
type paramGiven struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
}

// errorBody is a failed request's error: kind "model" (diagnostics with
// positions), "refused" (the oracle refuses the model), "options" (bad
// flags or start), "request" (a malformed request), "data" (a bad frame).
type errorBody struct {
	Kind        string               `json:"kind"`
	Message     string               `json:"message"`
	Diagnostics []summary.Diagnostic `json:"diagnostics,omitempty"`
	Text        string               `json:"text,omitempty"` // the diagnostics rendered with source lines and carets
}

// Serve reads and answers requests until the end of the input. Its error
// is for a failure of the pipe itself (a write that fails, a line too
// long to frame); a bad request is answered, not returned.
func (s *Server) Serve() error {
	reqs := make(chan *request)
	readErr := make(chan error, 1)
	go func() {
		defer close(reqs)
		for {
			r, err := s.read()
			if err != nil {
				readErr <- err
				s.running.Lock()
				s.running.closed = true // the client is gone: solve no more
				s.running.Unlock()
				s.interrupt(0)
				return
			}
			if r.Op == "interrupt" {
				s.interrupt(r.Target)
				continue
			}
			reqs <- r
		}
	}()
	for r := range reqs {
		if err := s.handle(r); err != nil {
			return err
		}
	}
	if err := <-readErr; err != io.EOF {
		return err
	}
	return nil
}

// read reads one request and its payload.
func (s *Server) read() (*request, error) {
	line, err := readLine(s.in)
	if err != nil {
		return nil, err
	}
	r := &request{}
	if err := json.Unmarshal(line, r); err != nil {
		// answered by handle as a malformed request
		return &request{Op: "invalid", Name: err.Error()}, nil
	}
	if limit, why := data.MemoryLimit(); r.Payload < 0 || limit > 0 && r.Payload > limit {
		// the stream cannot be read past a payload it does not take
		return nil, fmt.Errorf("request %d: a payload of %d bytes is beyond the memory a data set may take (%d bytes: %s)", r.ID, r.Payload, limit, why)
	}
	if r.Payload > 0 {
		r.payload = alignedBytes(int(r.Payload))
		if _, err := io.ReadFull(s.in, r.payload); err != nil {
			return nil, fmt.Errorf("request %d: reading its payload of %d bytes: %v", r.ID, r.Payload, err)
		}
	}
	return r, nil
}

// readLine reads a line of at most MaxLine bytes, without its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("a request line is longer than %d bytes", MaxLine)
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(bytes.TrimSpace(line)) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// Interrupt stops the running solve, as the request {"op": "interrupt"}
// does, and reports whether one was running.
func (s *Server) Interrupt() bool { return s.interrupt(0) }

// interrupt stops the solve of request target, or the running one when
// target is 0. An interrupt of a solve that has not started yet (its
// request is still queued) is kept, and stops it as it starts: a client
// that interrupts just after sending a solve is never ignored.
func (s *Server) interrupt(target int64) bool {
	s.running.Lock()
	defer s.running.Unlock()
	if s.running.cancel == nil || target != 0 && target != s.running.id {
		if target != 0 {
			s.running.early = target
		}
		return false
	}
	s.running.cancel()
	return true
}

// send writes one response line.
func (s *Server) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.out.Write(append(b, '\n'))
	return err
}

// fail answers r with an error.
func (s *Server) fail(r *request, e *errorBody) error {
	return s.send(map[string]any{"id": r.ID, "ok": false, "error": e})
}

// handle answers one request. A failure inside (a bug, not a bad
// request, which is answered as such) is answered as an internal error
// rather than ending the session.
func (s *Server) handle(r *request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = s.fail(r, &errorBody{Kind: "request", Message: fmt.Sprintf("internal error: %v", v)})
		}
	}()
	switch r.Op {
	case "hello":
		return s.send(map[string]any{"id": r.ID, "ok": true, "protocol": Protocol, "version": s.Version})
	case "frame":
		return s.frame(r)
	case "load":
		return s.load(r)
	case "solve":
		return s.solve(r)
	case "free":
		delete(s.models, r.Model)
		delete(s.frames, r.Handle)
		return s.send(map[string]any{"id": r.ID, "ok": true})
	case "invalid":
		return s.fail(r, &errorBody{Kind: "request", Message: "the request is not valid JSON: " + r.Name})
	}
	return s.fail(r, &errorBody{Kind: "request", Message: fmt.Sprintf("unknown op %q (hello, frame, load, solve, free, interrupt)", r.Op)})
}

// newID returns a fresh handle with the prefix.
func (s *Server) newID(prefix string) string {
	s.nextID++
	return prefix + strconv.Itoa(s.nextID)
}

// frame keeps a table or matrix the client sent.
func (s *Server) frame(r *request) error {
	if r.Frame == nil {
		return s.fail(r, &errorBody{Kind: "request", Message: "op frame needs a frame header"})
	}
	size, err := r.Frame.payloadSize()
	if err == nil && size != int64(len(r.payload)) {
		err = fmt.Errorf("the frame needs a payload of %d bytes, the request has %d", size, len(r.payload))
	}
	var f *frame
	if err == nil {
		f, err = newFrame(r.Frame, r.payload)
	}
	if err != nil {
		return s.fail(r, &errorBody{Kind: "data", Message: fmt.Sprintf("%s: %v", r.Frame.Name, err)})
	}
	id := s.newID("f")
	s.frames[id] = f
	return s.send(map[string]any{"id": r.ID, "ok": true, "frame": id, "bytes": f.bytes()})
}

// load reads, checks and compiles a model, as qrc.Load and qrc.Parse do
// with the options the command line gives them (qrc solve's loadModel),
// its data sets served by frames where the request names one.
func (s *Server) load(r *request) error {
	name := r.Name
	var src []byte
	switch {
	case r.Source != nil:
		src = []byte(*r.Source)
		if name == "" {
			name = "<string>"
		}
	case r.File != "":
		name = r.File
		path := r.File
		if !filepath.IsAbs(path) && r.Dir != "" {
			path = filepath.Join(r.Dir, path)
		}
		b, err := readModel(path)
		if err != nil {
			return s.fail(r, &errorBody{Kind: "model", Message: fmt.Sprintf("%s: cannot read model: %v", name, err),
				Diagnostics: []summary.Diagnostic{{Severity: "error", Pos: name, File: name, Message: "cannot read model: " + err.Error()}}})
		}
		src = b
	default:
		return s.fail(r, &errorBody{Kind: "request", Message: "op load needs a file or a source"})
	}
	// Data paths are relative to the model file's directory, as for qrc
	// solve, or for a text to the request's directory.
	opts := check.Options{RequireVariables: true, UsedColumns: true, Dir: r.Dir}
	if r.Source == nil {
		path := r.File
		if !filepath.IsAbs(path) && r.Dir != "" {
			path = filepath.Join(r.Dir, path)
		}
		opts.Dir = filepath.Dir(path)
	} else if opts.Dir == "" {
		opts.Dir = "."
	}
	l := loader{frames: map[string]*frame{}, files: modelfile.Data{Cache: &s.cache}}
	for set, g := range r.Data {
		switch {
		case g.Frame != "":
			f, ok := s.frames[g.Frame]
			if !ok {
				return s.fail(r, &errorBody{Kind: "request", Message: fmt.Sprintf("data set %s: no frame %q (sent and not freed)", set, g.Frame)})
			}
			l.frames[set] = f
		case g.Path != "":
			opts.Data = append(opts.Data, check.Assign{Name: set, Value: g.Path})
		}
	}
	opts.Loader = l
	for _, p := range r.Params {
		opts.Set = append(opts.Set, check.Assign{Name: p.Name, Value: p.Expr})
	}
	m, sources, diags := modelfile.LoadSource(name, src, opts)
	if m == nil {
		return s.fail(r, modelError(name, diags, sources))
	}
	prog, err := autodiff.Compile(m)
	if err != nil {
		var list diag.List
		if errors.As(err, &list) && len(list) > 0 {
			return s.fail(r, modelError(name, list, sources))
		}
		return s.fail(r, &errorBody{Kind: "model", Message: fmt.Sprintf("%s: cannot compile: %v", name, err)})
	}
	model := qrc.NewModel(name, m, prog, sources)
	id := s.newID("m")
	s.models[id] = model
	return s.send(map[string]any{"id": r.ID, "ok": true, "model": id,
		"summary": summary.Of(name, m, diags), "warnings": summary.Diagnostics(diags)})
}

// readModel reads a model file within the source limit.
func readModel(path string) ([]byte, error) {
	b, err := fileio.ReadFile(path, limits.MaxSourceBytes)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// modelError is the error of a model with diagnostics.
func modelError(file string, diags diag.List, sources check.Sources) *errorBody {
	errs := diags.Errors()
	var text bytes.Buffer
	diags.Print(&text, sources)
	e := &errorBody{Kind: "model", Diagnostics: summary.Diagnostics(diags), Text: text.String()}
	switch len(errs) {
	case 0:
		e.Message = file + ": invalid model"
	case 1:
		e.Message = errs[0].Error()
	default:
		e.Message = fmt.Sprintf("%s (and %d more errors)", errs[0].Error(), len(errs)-1)
	}
	return e
}

// outputFlags are qrc solve's flags about its output, which a client of
// the server gets in the response instead.
var outputFlags = []string{"json", "out", "trace", "checkpoint", "checkpoint-every", "quiet", "start", "cpuprofile"}

// solve solves a loaded model with qrc solve's flags.
func (s *Server) solve(r *request) error {
	model, ok := s.models[r.Model]
	if !ok {
		return s.fail(r, &errorBody{Kind: "request", Message: fmt.Sprintf("no model %q (loaded and not freed)", r.Model)})
	}
	flags, opts, err := solvecmd.ParseArgs(r.Flags)
	if err == nil {
		for _, f := range outputFlags {
			if solvecmd.Given(flags.FS, f) {
				err = fmt.Errorf("--%s is not an option here: the result, the trace and the start are the client's", f)
				break
			}
		}
	}
	if err != nil {
		return s.fail(r, &errorBody{Kind: "options", Message: err.Error()})
	}
	x0, err := s.start(r, model, *flags.Seed)
	if err != nil {
		return s.fail(r, &errorBody{Kind: "options", Message: err.Error()})
	}
	opts.Start = x0

	var notes []string
	var trace bytes.Buffer
	prog := &progress{s: s, id: r.ID, every: time.Duration(r.Progress * float64(time.Second))}
	solveOpts := []qrc.SolveOption{qrc.WithOptions(opts),
		qrc.WithNotes(func(n qrc.Note) {
			notes = append(notes, solvecmd.ToFlags(n.Text))
			if !n.Verbose {
				prog.note(solvecmd.ToFlags(n.Text))
			}
		}),
		qrc.WithRecorder(qrc.NewTraceWriter(&trace))}
	if r.Progress > 0 {
		solveOpts = append(solveOpts, qrc.WithRecorder(prog))
	}

	ctx, cancel := context.WithCancel(context.Background())
	s.running.Lock()
	s.running.id, s.running.cancel = r.ID, cancel
	if s.running.early == r.ID || s.running.closed {
		cancel()
	}
	s.running.Unlock()
	report, err := model.Solve(ctx, solveOpts...)
	s.running.Lock()
	s.running.cancel = nil
	s.running.Unlock()
	cancel()
	if err != nil {
		var refused *qrc.RefusalError
		if errors.As(err, &refused) {
			e := &errorBody{Kind: "refused", Message: solvecmd.ToFlags(refused.Msg)}
			if len(refused.Diagnostics) > 0 {
				l := solvecmd.DiagsToFlags(refused.Diagnostics)
				var text bytes.Buffer
				l.Print(&text, model.Sources())
				e.Diagnostics, e.Text, e.Message = summary.Diagnostics(l), text.String(), l[0].Error()
			}
			return s.fail(r, e)
		}
		return s.fail(r, &errorBody{Kind: "options", Message: solvecmd.ToFlags(err.Error())})
	}
	report.Verdict = solvecmd.ToFlags(report.Verdict)
	var res bytes.Buffer
	if err := report.WriteJSON(&res); err != nil {
		return s.fail(r, &errorBody{Kind: "options", Message: "writing the result: " + err.Error()})
	}
	var text bytes.Buffer
	report.WriteText(&text, qrc.TextOptions{Names: solvecmd.ToFlags})
	resp := map[string]any{"id": r.ID, "ok": true, "result": json.RawMessage(bytes.TrimSpace(res.Bytes())),
		"text": text.String(), "trace": trace.String(), "notes": notes}
	if rr := report.Result(); rr.Status == solve.NumericalError && rr.Err != nil {
		var ee *autodiff.EvalError
		if errors.As(rr.Err, &ee) && ee.Pos.Line > 0 {
			l := diag.List{{Pos: ee.Pos, Msg: ee.Msg}}
			resp["eval_error"] = summary.Diagnostics(l)[0]
		}
	}
	return s.send(resp)
}

// start is the solve's starting point: the model's (no start, or
// "model"), a random one seeded by --seed ("random"), or the variables
// of a point file's JSON object (a previous result), projected onto the
// domain as qrc solve --start projects a file's.
func (s *Server) start(r *request, model *qrc.Model, seed uint64) ([]float64, error) {
	raw := bytes.TrimSpace(r.Start)
	m := model.Checked()
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `"model"` {
		return model.Start(), nil
	}
	if string(raw) == `"random"` {
		return point.Random(m, seed), nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("start must be \"model\", \"random\" or a point (an object with \"variables\"), not %s", raw)
	}
	x, err := point.Parse("start", raw, m)
	if err != nil {
		return nil, err
	}
	for _, v := range m.Vars {
		v.Domain.Project(v.Of(x))
	}
	return x, nil
}

// progress is the Recorder that sends progress events: every outer
// iteration's record at most once per interval (and the first), with the
// solve's notes as they come.
type progress struct {
	s     *Server
	id    int64
	every time.Duration
	last  time.Time
	sent  bool
	run   qrc.Run
}

func (p *progress) Init(run qrc.Run) error {
	p.run = run
	return p.s.send(map[string]any{"id": p.id, "event": "start", "method": run.Method, "oracle": run.Oracle, "monitor": run.MonitorNote})
}

func (p *progress) Record(it qrc.Iteration) error {
	if it.K > 0 && it.Stage == "" {
		return nil
	}
	now := time.Now()
	if p.sent && now.Sub(p.last) < p.every {
		return nil
	}
	p.sent, p.last = true, now
	ev := map[string]any{"id": p.id, "event": "progress", "phase": it.Phase, "t": it.T,
		"seconds": it.Elapsed.Seconds(), "objective": finite(it.Objective), "infeasibility": finite(it.Infeasibility),
		"worst": it.Worst, "step": finite(it.Step), "rho_hat": finite(it.RhoHat), "estimate": it.Estimate, "stage": it.Stage}
	// a progress event that cannot be written means the client is gone:
	// the solve stops (status interrupted)
	return p.s.send(ev)
}

func (p *progress) Finish() {}

// note sends a solve's note (the oracle picked, a restart, a warning).
func (p *progress) note(text string) {
	_ = p.s.send(map[string]any{"id": p.id, "event": "note", "text": text})
}

// finite is v, or its name for NaN and the infinities, which JSON lacks.
func finite(v float64) any {
	if s := point.NonFiniteString(v); s != "" {
		return s
	}
	return v
}
