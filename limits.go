package promptcanary

// Bounds of the numeric settings, shared by canary.yaml validation and the
// command-line flags so that both accept exactly the same values. They are
// generous for real use and small enough that token and cost arithmetic
// (calls × samples × max_tokens) cannot overflow an int64.
const (
	// MinTemperature and MaxTemperature bound the sampling temperature.
	MinTemperature = 0.0
	MaxTemperature = 2.0
	// MaxMaxTokens bounds max_tokens (the largest completion any model
	// offers today is well below it).
	MaxMaxTokens = 1_000_000
	// MaxSamples bounds the samples per prompt.
	MaxSamples = 10_000
	// MaxConcurrency bounds the calls in flight per provider.
	MaxConcurrency = 1024
	// MaxRetries bounds the retries of one call.
	MaxRetries = 100
	// MaxRate bounds rpm and tpm limits.
	MaxRate = 1_000_000_000
	// MaxErrorsLimit bounds --max-errors.
	MaxErrorsLimit = 1_000_000_000
)

// Bounds of what is kept of an answer: its content is cut to
// max_answer_bytes (DefaultMaxAnswerBytes unless configured), a setting
// from MinMaxAnswerBytes to MaxMaxAnswerBytes.
const (
	// DefaultMaxAnswerBytes is the default bound of an answer (1 MiB,
	// some 250,000 tokens of English, past the max_tokens of every
	// suite). An answer longer than AnswerHeadBytes is held in memory by
	// its head only once the probes judged it, the rest in a spill file,
	// so that a check of 10 prompts × 10 samples compared with a
	// 30-sample baseline stays under 150 MiB of peak memory when every
	// answer is 5 MB (bench/answers).
	DefaultMaxAnswerBytes = 1 << 20
	// MinMaxAnswerBytes and MaxMaxAnswerBytes bound the setting (1 KiB
	// to 16 MiB).
	MinMaxAnswerBytes = 1 << 10
	MaxMaxAnswerBytes = 16 << 20
)
