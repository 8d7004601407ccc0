#include "train/SaveGpt2.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "io/IoError.h"
#include "io/Quote.h"

namespace headscope::train {

namespace {

constexpr std::string_view kSymbols =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
static_assert(kSymbols.size() == TrainConfig::kMaxVocab);

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), std::streamsize(text.size()));
    out.close();
    if (!out) throw io::IoError("cannot write " + io::quotePath(path.string()));
}

// safetensors with __metadata__ {"format": "pt"} (what save_pretrained writes), F32, name order.
void writeSafetensorsPt(const std::filesystem::path& path, const std::map<std::string, io::Tensor>& tensors) {
    nlohmann::ordered_json header;
    header["__metadata__"] = {{"format", "pt"}};
    std::uint64_t offset = 0;
    for (const auto& [name, tensor] : tensors) {
        const std::uint64_t bytes = tensor.data.size() * sizeof(float);
        header[name] = {{"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[std::size_t(i)] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
    file += text;
    for (const auto& [name, tensor] : tensors)  // little-endian float32, as on every machine this builds for
        file.append(reinterpret_cast<const char*>(tensor.data.data()), tensor.data.size() * sizeof(float));
    writeText(path, file);
}

io::Tensor filled(std::vector<std::int64_t> shape, float value) {
    io::Tensor t;
    t.shape = std::move(shape);
    t.data.assign(std::size_t(t.size()), value);
    return t;
}

}  // namespace

char vocabularySymbol(int id) {
    if (id < 0 || id >= TrainConfig::kMaxVocab) throw std::invalid_argument("no symbol for token id " + std::to_string(id));
    return kSymbols[std::size_t(id)];
}

void saveGpt2Folder(const TrainConfig& c, const ParameterLayout& layout, const Eigen::Ref<const Eigen::VectorXf>& parameters,
                    const std::string& directory) {
    c.validate();
    if (parameters.size() != layout.size()) throw std::invalid_argument("the parameters do not match the model's layout");
    const std::filesystem::path dir(directory);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw io::IoError("cannot create " + io::quotePath(directory) + ": " + error.message());

    std::map<std::string, io::Tensor> tensors;
    for (auto& [name, tensor] : tensorsFromParameters(layout, parameters))
        tensors[name == "lm_head.weight" ? name : "transformer." + name] = std::move(tensor);
    if (!c.mlp) {
        const std::int64_t d = c.d_model, inner = c.mlpWidth();
        for (int l = 0; l < c.layers; ++l) {
            const std::string h = "transformer.h." + std::to_string(l) + ".";
            tensors[h + "ln_2.weight"] = filled({d}, 1.0f);
            tensors[h + "ln_2.bias"] = filled({d}, 0.0f);
            tensors[h + "mlp.c_fc.weight"] = filled({d, inner}, 0.0f);
            tensors[h + "mlp.c_fc.bias"] = filled({inner}, 0.0f);
            tensors[h + "mlp.c_proj.weight"] = filled({inner, d}, 0.0f);
            tensors[h + "mlp.c_proj.bias"] = filled({d}, 0.0f);
        }
    }
    writeSafetensorsPt(dir / "model.safetensors", tensors);

    nlohmann::ordered_json config = {
        {"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}}, {"n_layer", c.layers},
        {"n_head", c.heads}, {"n_embd", c.d_model}, {"vocab_size", c.vocab}, {"n_positions", c.context},
        {"n_ctx", c.context}, {"n_inner", c.mlpWidth()}, {"layer_norm_epsilon", 1e-5},
        {"activation_function", "gelu_new"}, {"tie_word_embeddings", c.tied_embeddings}};
    writeText(dir / "config.json", config.dump(2) + "\n");
    nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
    for (int id = 0; id < c.vocab; ++id) vocab[std::string(1, vocabularySymbol(id))] = id;
    writeText(dir / "vocab.json", vocab.dump() + "\n");
    writeText(dir / "merges.txt", "#version: 0.2\n");
}

}  // namespace headscope::train
