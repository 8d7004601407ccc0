#include "io/MatrixExport.h"

#include <filesystem>
#include <fstream>

#include "Circuits.h"
#include "RankTable.h"
#include "io/Csv.h"
#include "io/IoError.h"
#include "io/Npy.h"

namespace headscope::io {

namespace {

void writeTokens(const std::string& path, const std::vector<std::string>& tokens) {
    std::ofstream out(path, std::ios::binary);
    for (const auto& t : tokens) out << t << '\n';
    if (!out) throw IoError("cannot write " + path);
}

}  // namespace

std::vector<std::string> exportMatrices(const Analysis& a, const std::string& dir,
                                        const std::vector<MatrixFormat>& formats) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) throw IoError("cannot create the output directory " + dir);

    std::vector<std::string> written;
    auto save = [&](const std::string& name, const Eigen::Ref<const Eigen::MatrixXf>& m) {
        for (MatrixFormat f : formats) {
            const std::string path = (fs::path(dir) / (name + (f == MatrixFormat::Csv ? ".csv" : ".npy"))).string();
            if (f == MatrixFormat::Csv)
                writeCsv(path, m);
            else
                writeNpy(path, m);
            written.push_back(path);
        }
    };
    const Weights& w = a.weights();
    save("X", a.input.query.X);
    if (a.input.cross) save("X_kv", a.input.key_value.X);
    save("W_Q", w.W_Q);
    save("W_K", w.W_K);
    save("W_V", w.W_V);
    save("W_O", w.W_O);
    if (w.hasBias()) {
        save("b_Q", w.b_Q);
        save("b_K", w.b_K);
        save("b_V", w.b_V);
        save("b_O", w.b_O);
    }
    save("Q", a.results.Q);  // (n_q, h*d_k): head i is columns i*d_k .. (i+1)*d_k - 1
    save("K", a.results.K);  // (n_kv, kv*d_k)
    save("V", a.results.V);  // (n_kv, kv*d_v)
    save("output", a.results.output);
    for (int i = 0; i < w.heads; ++i) {
        const std::string head = "head_" + std::to_string(i) + "_";
        save(head + "logits", *a.headLogits(i));
        save(head + "weights", a.results.heads[i].weights);
        save(head + "W_QK", mergedQK(w, i));
        save(head + "W_OV", mergedOV(w, i));
    }
    // The spectra (every index 1..d_model, zeros included) and the rank table, as data.
    for (const auto& [name, text] : {std::pair{"spectra.csv", spectraCsv(a)}, std::pair{"ranks.csv", rankTableCsv(a)}}) {
        const std::string path = (fs::path(dir) / name).string();
        std::ofstream out(path, std::ios::binary);
        out << text;
        if (!out) throw IoError("cannot write " + path);
        written.push_back(path);
    }
    const std::string tokens = (fs::path(dir) / "tokens.txt").string();
    writeTokens(tokens, a.input.query.tokens);
    written.push_back(tokens);
    if (a.input.cross) {
        const std::string source = (fs::path(dir) / "source_tokens.txt").string();
        writeTokens(source, a.input.key_value.tokens);
        written.push_back(source);
    }
    return written;
}

}  // namespace headscope::io
