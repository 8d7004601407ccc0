#include "common/ReferenceSvd.h"

#include <Eigen/SVD>

namespace headscope::test {

Eigen::VectorXd referenceSingularValues(const Eigen::MatrixXd& m) {
    return Eigen::JacobiSVD<Eigen::MatrixXd>(m).singularValues();
}

ReferenceSvd referenceSvd(const Eigen::MatrixXd& m) {
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(m, Eigen::ComputeThinU | Eigen::ComputeThinV);
    return {svd.singularValues(), svd.matrixU(), svd.matrixV()};
}

}  // namespace headscope::test
