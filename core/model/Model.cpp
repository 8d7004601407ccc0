#include "model/Model.h"

namespace headscope::model {

long long Model::parameterCount() const {
    long long count = wte_t.size() + wpe_t.size() + lm_head_t.size() + ln_f.weight.size() + ln_f.bias.size();
    for (const Block& b : blocks)
        count += b.ln_1.weight.size() + b.ln_1.bias.size() + b.attention.parameterCount() + b.ln_2.weight.size() +
                 b.ln_2.bias.size() + b.W_fc_t.size() + b.b_fc.size() + b.W_proj_t.size() + b.b_proj.size();
    return count;
}

}  // namespace headscope::model
