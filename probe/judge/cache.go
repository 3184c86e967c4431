package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Cache modes of the cache parameter.
const (
	// CacheDisk keeps verdicts in memory and in files beside canary.yaml,
	// so that a later process (a compare after a run) finds them.
	CacheDisk = "disk"
	// CacheMemory keeps verdicts for the life of the process: a run and
	// the compare or confirmation that follows in it.
	CacheMemory = "memory"
	// CacheOff asks the judge about every answer.
	CacheOff = "off"
)

// CacheDir is where the disk cache lives, relative to the directory of
// canary.yaml: beside the run history, which `promptcanary init` keeps
// out of git.
const CacheDir = ".promptcanary/judge"

// memoSize bounds the verdicts one probe keeps in memory.
const memoSize = 10_000

// maxRecord bounds a cache file read back (a verdict is a few hundred
// bytes; anything larger is not ours).
const maxRecord = 1 << 20

// entry is a verdict the judge gave, as the cache keeps it: its answer
// (parsed again on every use, so that the format rules are applied
// whatever the cache holds) and what the call consumed.
type entry struct {
	Judge            string    `json:"judge"`
	Answer           string    `json:"answer"`
	PromptTokens     int       `json:"prompt_tokens"`
	CompletionTokens int       `json:"completion_tokens"`
	Created          time.Time `json:"created"`
	// disk is set on an entry read from a file.
	disk bool
}

// key identifies a judge call by everything that decides its answer: the
// judge, its sampling parameters, the scale and the whole prompt it is
// sent (the template filled with the rubric, the prompt and the answer).
func (j *Judge) key(text string) string {
	h := sha256.New()
	for _, part := range []string{"llm_judge v1", j.spec, strconv.FormatFloat(j.temperature, 'g', -1, 64),
		strconv.Itoa(j.maxTokens), strconv.Itoa(j.min), strconv.Itoa(j.max), text} {
		fmt.Fprintf(h, "%d:%s\n", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// disk is the persistent cache: one small JSON file per verdict under
// dir, named by its key.
type disk struct{ dir string }

func (d disk) path(key string) string { return filepath.Join(d.dir, key[:2], key+".json") }

// read returns the entry stored under key, if a readable one is there.
func (d disk) read(key, spec string) (entry, bool) {
	f, err := os.Open(d.path(key))
	if err != nil {
		return entry{}, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil || len(data) > maxRecord {
		return entry{}, false
	}
	var e entry
	if json.Unmarshal(data, &e) != nil || e.Judge != spec {
		return entry{}, false
	}
	e.disk = true
	return e, true
}

// write stores e under key, atomically: a reader sees the whole file or
// none.
func (d disk) write(key string, e entry) (err error) {
	path := d.path(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write judge cache: %w", err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("write judge cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write judge cache: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write judge cache: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write judge cache: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write judge cache: %w", err)
	}
	return nil
}
