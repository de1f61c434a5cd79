-- wrk's requests for the memory soak (Benchmarks/soak.py): sent in turn, 5xx answers counted.
local form = { ["Content-Type"] = "application/x-www-form-urlencoded" }
local requests = {
  wrk.format("GET", "/auth/keys"),
  wrk.format("GET", "/.well-known/openid-configuration"),
  wrk.format("GET", "/appleid/button?width=200&height=44"),
  wrk.format("POST", "/auth/token", form, "client_id=com.example.web&client_secret=forged&grant_type=authorization_code&code=c0de"),
  wrk.format("POST", "/auth/revoke", form, "client_id=com.example.web&client_secret=forged&token=t0ken"),
  wrk.format("GET", "/auth/authorize?client_id=com.example.unknown&redirect_uri=https%3A%2F%2Fexample.com&response_type=code"),
  wrk.format("DELETE", "/auth/token"),
}
local next_request = 0
fives = 0 -- global: done() reads it from each thread
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function request()
  next_request = next_request % #requests + 1
  return requests[next_request]
end

function response(status)
  if status >= 500 then fives = fives + 1 end
end

function done()
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("fives") end
  io.write(string.format("5xx %d\n", total))
end
