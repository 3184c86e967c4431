package match

func init() {
	registerText(Contains, false, `probes:
  - type: contains
    values: [Paris, "capital of France"]
    mode: any
    case_sensitive: false
    trim: false
    not: false
`)
}
