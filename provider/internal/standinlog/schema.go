package standinlog

// Required returns the object a stand-in answers for a JSON object schema:
// each required property, valued by value from the property's own schema;
// other properties are left out.
func Required(schema map[string]any, value func(schema map[string]any) any) map[string]any {
	out := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	for _, k := range req {
		name, _ := k.(string)
		p, _ := props[name].(map[string]any)
		out[name] = value(p)
	}
	return out
}
