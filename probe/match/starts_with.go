package match

func init() {
	registerText(StartsWith, true, `probes:
  - type: starts_with
    values: ["Sure", "Of course", "As an AI"]
    mode: any
    case_sensitive: false
    trim: true
    not: true
`)
}
