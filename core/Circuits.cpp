#include "Circuits.h"

#include "Engine.h"

namespace headscope {

Eigen::MatrixXf mergedOV(const Weights& w, int head) {
    // (d_model, d_v) x (d_v, d_model) -> (d_model, d_model)
    return w.valueHead(head) * w.outputHead(head);
}

Circuits headCircuits(const Weights& w, int head) {
    Circuits c;
    c.head = head;
    c.W_QK = mergedQK(w, head);  // (d_model, d_k) x (d_k, d_model)
    c.W_OV = mergedOV(w, head);
    return c;
}

}  // namespace headscope
