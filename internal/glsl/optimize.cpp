// The SPIR-V optimiser, run after libshaderc compiled without one: the
// equivalent of `spirv-opt -O`, which keeps the names (libshaderc's own
// optimisation strips them).
#include <spirv-tools/optimizer.hpp>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int vks_optimize(const uint32_t *in, size_t words, int env, uint32_t **out, size_t *out_words) {
	spv_target_env e = SPV_ENV_VULKAN_1_1;
	switch (env) {
	case 0: e = SPV_ENV_VULKAN_1_0; break;
	case 2: e = SPV_ENV_VULKAN_1_2; break;
	case 3: e = SPV_ENV_VULKAN_1_3; break;
	}
	spvtools::Optimizer opt(e);
	opt.RegisterPerformancePasses();
	std::vector<uint32_t> res;
	if (!opt.Run(in, words, &res)) {
		return 0;
	}
	*out = static_cast<uint32_t *>(malloc(res.size() * sizeof(uint32_t)));
	if (!*out) {
		return 0;
	}
	memcpy(*out, res.data(), res.size() * sizeof(uint32_t));
	*out_words = res.size();
	return 1;
}
