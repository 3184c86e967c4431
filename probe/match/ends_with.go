package match

func init() {
	registerText(EndsWith, true, `probes:
  - type: ends_with
    values: ["}"]
    mode: all
    case_sensitive: true
    trim: true
    not: false
`)
}
