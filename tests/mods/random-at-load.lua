-- randomness at load time
local lucky = 3
local roll = math.random(6)
