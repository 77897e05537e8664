# tflint with its bundled terraform ruleset only (no plugin to download): every rule of it, on every
# module and on the example root. Run: tflint --recursive --config "$PWD/.tflint.hcl" (in infra/terraform).
config {
  call_module_type = "local"
}

plugin "terraform" {
  enabled = true
  preset  = "all"
}
