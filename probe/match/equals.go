package match

func init() {
	registerText(Equals, true, `probes:
  - type: equals
    values: ["yes", "no"]
    mode: any
    case_sensitive: false
    trim: true
    not: false
`)
}
