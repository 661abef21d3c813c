-- main.lua
local M = {}
function M.classify(_ctx)
return { state = "ready", confidence = 1.0, evidence = "echo plugin" }
end
function M.send_prompt(input)
return {
actions = {
ptywright.action.text(input.prompt or ""),
ptywright.action.key("enter"),
},
last_intent = "prompt_submitted",
}
end
function M.wait_turn_matcher(_input)
return ptywright.matcher.screen_stable(150)
end
return M
